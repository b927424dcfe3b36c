#!/bin/sh
# Write the series in build/src back to patches/ (git format-patch), keeping
# the cover letter, which lives in the branch description of build/src.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

src=$BUILD/src
[ -d "$src/.git" ] || die "no tree in build/src; run make tree"
git -C "$src" diff --quiet HEAD || die "build/src has uncommitted changes; commit them first"
desc=$(git -C "$src" config branch.master.description || true)
[ -n "$desc" ] || die "no cover letter: set it with git -C build/src branch --edit-description"
tmp=$BUILD/export.$$
rm -rf "$tmp"
# Stable output: zero commit ids, no signature, the cover letter from and
# dated like the last patch, so that tree -> patches -> tree -> patches
# round-trips unchanged.
GIT_COMMITTER_DATE=$(git -C "$src" log -1 --format=%ad --date=rfc HEAD) \
GIT_COMMITTER_NAME=$(git -C "$src" log -1 --format=%an HEAD) \
GIT_COMMITTER_EMAIL=$(git -C "$src" log -1 --format=%ae HEAD) \
git -C "$src" format-patch -q --cover-letter --cover-from-description=subject \
	--subject-prefix="$(git -C "$src" config format.subjectPrefix || echo PATCH)" \
	--zero-commit --no-signature -o "$tmp" pristine..HEAD
rm -f "$TOP"/patches/*.patch
mv "$tmp"/*.patch "$TOP"/patches/
rmdir "$tmp"
# shellcheck disable=SC2010 # patch names are the series' own
ls "$TOP"/patches/*.patch | grep -v /0000- | xargs cat | sha256sum | cut -c1-16 >"$src/.git/series-id"
git -C "$src" rev-parse HEAD >"$src/.git/series-head"
# shellcheck disable=SC2010
echo "exported $(ls "$TOP"/patches/[0-9]*.patch | grep -vc /0000-) patches and the cover letter to patches/"
