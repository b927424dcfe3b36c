# The one place that names what we build against.  Override on the command
# line: make LINUX_DEB_VERSION=6.12.117-1~deb12u1
LINUX_DEB_VERSION ?= 6.12.118-1~deb12u1
