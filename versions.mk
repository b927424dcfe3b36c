# What we build and boot against, pinned.  Override on the command line:
#   make LINUX_DEB_VERSION=6.12.117-1~deb12u1
# The source of the series: Debian's linux-source-6.12.
LINUX_DEB_VERSION ?= 6.12.118-1~deb12u1
# The "6.12" side of the matrix: Debian's own kernel, built from the same
# source package (nothing is installed; scripts/stock.sh unpacks it).
STOCK_6_12_PKG ?= linux-image-6.12.118+deb12-amd64-unsigned
STOCK_6_12_VERSION ?= 6.12.118-1~deb12u1
# The 6.1 side of make guard-check: Debian 12's own 6.1 kernel.
STOCK_6_1_PKG ?= linux-image-6.1.0-57-amd64-unsigned
STOCK_6_1_VERSION ?= 6.1.192-3
