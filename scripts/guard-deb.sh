#!/bin/sh
# Package immguard for Debian (make guard-deb): the loader that make guard
# built (linked against Debian's libbpf1, libelf1, zlib1g), its unit, its man page and README, and the maintainer scripts of
# guard/debian/, with dpkg-deb; lintian checks it where it is installed.
# Usage: guard-deb.sh VERSION
# Writes build/guard/immguard_VERSION_amd64.deb.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

version=$1
g=$TOP/guard
bin=$BUILD/guard/immguard-dyn
[ -x "$bin" ] || die "no $bin: run make guard"
stage=$BUILD/guard/deb
rm -rf "$stage" && mkdir -p "$stage/DEBIAN"
install -D -m 0755 "$bin" "$stage/usr/sbin/immguard"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/sbin/immguard"
install -D -m 0644 "$g/immguard.service" "$stage/lib/systemd/system/immguard.service"
install -D -m 0644 "$g/debian/default" "$stage/etc/default/immguard"
install -d "$stage/usr/share/man/man8" "$stage/usr/share/doc/immguard" \
	"$stage/usr/share/lintian/overrides"
# the shared libraries it links, as the archive has them (dpkg-shlibdeps'
# job in a source package)
# (merged /usr: dpkg knows a library by one of its two paths)
deps=$(ldd "$bin" | awk '$3 ~ /^\// { print $3 }' | while read -r l; do
	dpkg -S "$l" 2>/dev/null || dpkg -S "/usr${l#/usr}" 2>/dev/null ||
		dpkg -S "${l#/usr}" 2>/dev/null || die "no package has $l"
done | cut -d: -f1 | sort -u | grep -v '^libc6$' | paste -sd, - | sed 's/,/, /g')
gzip -9n <"$g/immguard.8" >"$stage/usr/share/man/man8/immguard.8.gz"
gzip -9n <"$g/README.md" >"$stage/usr/share/doc/immguard/README.md.gz"
sed "s/@VERSION@/$version/" "$g/debian/changelog" | gzip -9n \
	>"$stage/usr/share/doc/immguard/changelog.Debian.gz"
install -m 0644 "$g/debian/copyright" "$stage/usr/share/doc/immguard/copyright"
install -m 0644 "$g/debian/lintian-overrides" "$stage/usr/share/lintian/overrides/immguard"
echo /etc/default/immguard >"$stage/DEBIAN/conffiles"
chmod 0644 "$stage/DEBIAN/conffiles"
for s in postinst prerm postrm; do
	install -m 0755 "$g/debian/$s" "$stage/DEBIAN/$s"
done
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed "s/@VERSION@/$version/; s/@SIZE@/$size/; s/@DEPENDS@/libc6, $deps/" "$g/debian/control" >"$stage/DEBIAN/control"
(cd "$stage" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z |
	xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/md5sums" "$stage/DEBIAN/control"
deb=$BUILD/guard/immguard_${version}_amd64.deb
logged "$LOGS/guard-deb.log" dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" ||
	die "dpkg-deb failed"
echo "immguard package: ${deb#"$TOP"/}"
if command -v lintian >/dev/null; then
	if lintian --fail-on error,warning "$deb" >"$LOGS/guard-lintian.log" 2>&1; then
		echo "lintian: clean ($(grep -c . "$LOGS/guard-lintian.log") notes, ${LOGS#"$TOP"/}/guard-lintian.log)"
	else
		cat "$LOGS/guard-lintian.log" >&2
		die "lintian finds errors or warnings in $deb"
	fi
fi
