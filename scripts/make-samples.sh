#!/usr/bin/env bash
# Regenerates samples/ (tiny, teaching, medium) with our own simulator. Needs a built gpurec:
#   cmake --preset release && cmake --build --preset release
# or GPUREC=/path/to/gpurec bash scripts/make-samples.sh
set -euo pipefail
cd "$(dirname "$0")/.."
gpurec=${GPUREC:-build/release/app/gpurec}
[[ -x "$gpurec" ]] || { echo "make-samples: $gpurec not found; build gpurec first or set GPUREC" >&2; exit 1; }
gpurec=$(realpath "$gpurec")
samples=$(pwd)/samples
trees=$(mktemp -d)
trap 'rm -rf "$trees"' EXIT
cd "$trees" # given species trees are named without a temporary path in the truth files

# tiny: 4 species, 2 small families, one tree each; small enough to check by hand.
echo '((A:1,B:1)AB:1,(C:1,D:1)CD:1)R;' > tiny.nwk
rm -rf "$samples"/tiny
"$gpurec" simulate -o "$samples"/tiny -s tiny.nwk --families 2 --d 0.3 --l 0.3 --t 0.3 \
  --max-genes 8 --min-covered-species 3 --seed 11

# teaching: 12 bacterial genera (branch lengths only for drawing; the undated model ignores them),
# 30 families with visible duplications and transfers; 9 of them (on average) come as samples of
# 10 perturbed trees, the others as their true tree.
cat > teaching.nwk <<'NWK'
((((Escherichia:0.2,Salmonella:0.2)Enterobacteriaceae:0.2,Klebsiella:0.4)Enterobacterales:0.35,(Vibrio:0.5,Pseudomonas:0.5):0.25)Gammaproteobacteria:0.25,((((Bacillus:0.25,Listeria:0.25):0.2,Staphylococcus:0.45)Bacillales:0.2,(Streptococcus:0.4,Clostridium:0.4):0.25)Firmicutes:0.2,(Mycobacterium:0.55,Streptomyces:0.55)Actinobacteria:0.3)Terrabacteria:0.15)Bacteria;
NWK
rm -rf "$samples"/teaching
"$gpurec" simulate -o "$samples"/teaching -s teaching.nwk --families 30 --d 0.15 --l 0.15 --t 0.1 \
  --family-rate-spread 1.5 --min-covered-species 4 --max-genes 40 \
  --tree-samples 10 --sampled-fraction 0.3 --perturbation-rate 0.15 --seed 2024

# medium: a 100-species birth-death tree and 500 families, one tree each.
rm -rf "$samples"/medium
"$gpurec" simulate -o "$samples"/medium --species 100 --death-rate 0.3 --families 500 --d 0.1 --l 0.25 --t 0.08 \
  --family-rate-spread 1.5 --min-covered-species 4 --max-genes 60 --compact-xml --seed 100

du -sh --apparent-size "$samples"/tiny "$samples"/teaching "$samples"/medium
