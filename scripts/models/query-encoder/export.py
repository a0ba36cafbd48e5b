"""Export the trained query encoder as slm runs it: the same int8 recipe as the full model
(scripts/models/embeddinggemma/build.py: SmoothQuant, dynamic int8 MatMuls, 8-bit blockwise
down_proj), with the token embedding table moved out of the graph.

  python export.py STUDENT_CKPT OUT_DIR

OUT_DIR/model.onnx holds the student's layers, norm and dense head inline (committed); its two
embedding initializers (`embed_tokens.q`, int8 rows, and `embed_tokens.scale`) are external data
in `embed.bin`, which is byte for byte the full model's own table (the student never trains
it), so setup derives it from the installed EmbeddingGemma (table.py) instead of shipping
200 MB twice.
"""

import os
import subprocess
import sys
import tempfile

import onnx
from onnx.external_data_helper import set_external_data, uses_external_data

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "..", "embeddinggemma", "build.py")
TABLE = ("embed_tokens.q", "embed_tokens.scale")


def main():
    ck, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        raw = os.path.join(tmp, "model.onnx")
        subprocess.run([sys.executable, BUILD, "int8", "--checkpoint", ck, "--out", raw], check=True)
        m = onnx.load(raw, load_external_data=True)
    offset = 0
    with open(os.path.join(out, "embed.bin"), "wb") as table:
        for name in TABLE:
            t = next(i for i in m.graph.initializer if i.name == name)
            data = t.raw_data
            table.write(data)
            set_external_data(t, "embed.bin", offset=offset, length=len(data))
            t.ClearField("raw_data")
            t.data_location = onnx.TensorProto.EXTERNAL
            offset += len(data)
    for t in m.graph.initializer:
        assert t.name in TABLE or not uses_external_data(t), t.name
    onnx.save(m, os.path.join(out, "model.onnx"))
    print(f"model.onnx {os.path.getsize(os.path.join(out, 'model.onnx')) / 1e6:.1f} MB; "
          f"embed.bin {offset / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
