#!/bin/sh
# Make build/src a git tree of Debian's linux-source-6.12 with patches/ on
# top, and build/pristine a worktree of the untouched source.
# Usage: tree.sh DEBIAN_VERSION
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

want=$1
tarball=/usr/src/linux-source-6.12.tar.xz
src=$BUILD/src
git_src() { git -C "$src" "$@"; }

# shellcheck disable=SC2010 # patch names are the series' own
series() { ls "$TOP"/patches/[0-9]*.patch 2>/dev/null | grep -v /0000- || true; }
series_id() { series | xargs cat 2>/dev/null | sha256sum | cut -c1-16; }

unpack() {
	[ -f "$tarball" ] || die "$tarball missing; run make deps"
	got=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	[ "$got" = "$want" ] ||
		die "installed linux-source-6.12 is $got, wanted $want; run make deps"
	tmp=$BUILD/unpack.$$
	rm -rf "$tmp" && mkdir -p "$tmp"
	echo "unpacking $tarball ($want)"
	tar -C "$tmp" -xf "$tarball"
	mv "$tmp"/linux-source-6.12 "$src" && rmdir "$tmp"
	git_src init -q -b master
	git_src config user.name "immutable harness"
	git_src config user.email "harness@localhost"
	git_src config gc.auto 0
	git_src config core.abbrev 12
	printf '/.build*/\n' >>"$src/.git/info/exclude"
	echo "committing the pristine tree"
	git_src add -A -f .  # Debian's .gitignore ignores the top level
	git_src commit -q -m "Debian linux-source-6.12 $want"
	git_src tag -a -m "$want" pristine
}

apply_series() {
	git_src am --abort >/dev/null 2>&1 || true
	git_src reset -q --hard pristine
	n=0
	for p in $(series); do
		if ! git_src am -q --keep-cr "$p" >"$LOGS/git-am.log" 2>&1; then
			cat "$LOGS/git-am.log" >&2
			git_src am --abort >/dev/null 2>&1 || true
			die "patch $(basename "$p") does not apply to $want; fix it in build/src, then make export"
		fi
		n=$((n + 1))
	done
	echo "applied $n patches on top of pristine $want"
	cover=$(ls "$TOP"/patches/0000-*.patch 2>/dev/null || true)
	if [ -n "$cover" ]; then
		# The cover letter's subject and blurb become the branch
		# description, which make export turns back into the letter;
		# a long subject is folded onto lines that start with a space.
		awk '
			/^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; next }
			subj != "" && !body && /^ / { subj = subj $0; next }
			subj != "" && !body && /^$/ { body = 1; print subj; print ""; next }
			body && /^[^ ].* \([0-9]+\):$/ { exit }
			body { print }
		' "$cover" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$BUILD/cover.txt"
		git_src config branch.master.description "$(cat "$BUILD/cover.txt")"
		# "[PATCH v3 00/24]" -> "PATCH v3", for make export
		prefix=$(sed -n 's/^Subject: \[\(.*\) 0*0\/[0-9]*\].*/\1/p' "$cover")
		git_src config format.subjectPrefix "${prefix:-PATCH}"
	fi
	series_id >"$src/.git/series-id"
	git_src rev-parse HEAD >"$src/.git/series-head"
}

if [ ! -d "$src/.git" ]; then
	unpack
	apply_series
else
	base=$(git_src tag -l --format='%(contents:subject)' pristine)
	[ "$base" = "$want" ] ||
		die "build/src was made from $base, not $want; remove build/src (keep your work: make export first)"
	if [ "$(cat "$src/.git/series-id" 2>/dev/null)" != "$(series_id)" ]; then
		if [ "$(git_src rev-parse HEAD)" != "$(cat "$src/.git/series-head" 2>/dev/null)" ] ||
			[ -n "$(git_src status --porcelain --untracked-files=no)" ]; then
			die "patches/ changed but build/src has its own commits or changes; make export, or reset build/src"
		fi
		echo "patches/ changed: re-applying the series"
		apply_series
	elif [ "$(git_src rev-parse HEAD)" != "$(cat "$src/.git/series-head")" ]; then
		echo "note: build/src has commits not exported to patches/ (make export)"
	fi
fi

if [ ! -d "$BUILD/pristine" ]; then
	git_src worktree add -q --detach "$BUILD/pristine" pristine
fi
