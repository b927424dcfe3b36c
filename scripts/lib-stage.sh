#!/bin/sh
# Usage: lib-stage.sh NAME CMD...: run CMD as one visible, timed stage.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
name=$1
shift
stage "$name" "$@"
