#!/usr/bin/env bash
# Retakes docs/screenshots/examples/*.png from the bundled recordings in resources/examples/: the main
# window at 1920x1080 and in presentation mode at 1280x720, offscreen, with no GPU check (the banner would
# depend on the machine). Run from anywhere after a build: docs/screenshots/examples/retake.sh [APP]
set -euo pipefail
cd "$(dirname "$0")/../../.."
app=$(realpath "${1:-build/app/streamscope}")
export QT_QPA_PLATFORM=offscreen
for trace in resources/examples/*.sstrace; do
  name=$(basename "$trace" .sstrace)
  "$app" "$trace" --screenshot "docs/screenshots/examples/$name.png" --size 1920x1080
  "$app" "$trace" --presentation --screenshot "docs/screenshots/examples/$name-presentation.png" --size 1280x720
done
