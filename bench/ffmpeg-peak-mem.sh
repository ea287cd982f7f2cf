#!/usr/bin/env bash
# ffmpeg wrapper for benchmarks: records each run's peak RSS (KiB) in $PEAK_LOG.
exec /usr/bin/time -a -o "${PEAK_LOG:-/dev/null}" -f "%M" ffmpeg "$@"
