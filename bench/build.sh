#!/usr/bin/env bash
# Builds a product of the Benchmarks package (Benchmarks/Package.swift) into this package's .build, beside what is
# already built there, so that .build/CONFIG/PRODUCT is where the scripts look for it and the dependencies are not
# built a second time. SwiftPM keeps one build description per scratch path and does not notice that another root
# package used it, so it is removed before and after (as scripts/build-examples.sh does).
# Usage: bench/build.sh PRODUCT [debug|release]   (default: release)
set -euo pipefail
cd "$(dirname "$0")/.."
product=$1
config=${2:-release}
rm -f ".build/$config/description.json"
trap 'rm -f ".build/$config/description.json"' EXIT
swift build --package-path Benchmarks --scratch-path "$PWD/.build" -c "$config" --product "$product"
