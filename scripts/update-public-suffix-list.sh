#!/usr/bin/env bash
# Replaces the Public Suffix List the package ships (Sources/TransportTrust/Resources/PublicSuffixList) with a
# public_suffix_list.dat, the list's own file, unchanged (Debian's `publicsuffix` package installs one at
# /usr/share/publicsuffix/public_suffix_list.dat), and records where it came from in metadata.json.
# Usage: scripts/update-public-suffix-list.sh [FILE] [SOURCE-DESCRIPTION] [VERSION]
set -euo pipefail
src=${1:-/usr/share/publicsuffix/public_suffix_list.dat}
dir=$(dirname "$0")/../Sources/TransportTrust/Resources/PublicSuffixList
# The package reads both sections (wildcards consult the ICANN one only, as Chromium does): refuse a file without them.
for section in ICANN PRIVATE; do
  grep -q "===BEGIN $section DOMAINS===" "$src" && grep -q "===END $section DOMAINS===" "$src" \
    || { echo "$src has no $section DOMAINS section: not a public_suffix_list.dat" >&2; exit 1; }
done
version=${3:-$(dpkg-query -W -f '${Version}' publicsuffix 2>/dev/null | sed 's/-[^-]*$//' || true)}
source=${2:-"The Public Suffix List (https://publicsuffix.org), Mozilla Public License 2.0, from $src"}
cp "$src" "$dir/public_suffix_list.dat"
python3 - "$dir/metadata.json" "$source" "${version:-unknown}" <<'PY'
import datetime, json, sys
path, source, version = sys.argv[1:]
json.dump({"source": source, "version": version, "copied": datetime.date.today().isoformat(),
           "note": "The file is the list itself, unchanged; scripts/update-public-suffix-list.sh replaces it and this file."},
          open(path, "w"), indent=2)
open(path, "a").write("\n")
PY
echo "wrote $dir/public_suffix_list.dat ($(wc -l < "$dir/public_suffix_list.dat") lines), version ${version:-unknown}"
