# The source the series is built from, pinned: Debian's linux-source-6.12.
# Override on the command line:
#   make LINUX_DEB_VERSION=6.12.117-1~deb12u1
# Debian's own kernel images (the before sides, the guard's kernels) are
# pinned in config/kernels.
LINUX_DEB_VERSION ?= 6.12.118-1~deb12u1
