"""Build EmbeddingGemma-300M as ONNX from the official sentence-transformers checkpoint.

No torch, no transformers: the checkpoint's safetensors are read with safetensors+numpy and
the graph is written with the onnx package (see graph.py for the architecture).

  python build.py fp32 --checkpoint CKPT --out fp32.onnx
      the full-precision graph (about 1.2 GB), used to check the architecture
  python build.py int8 --checkpoint CKPT --out model.onnx [--tmp DIR]
      the shipped graph (about 310 MB): embedding table int8 with one fp32 scale per row,
      every MatMul weight int8 (weight-only, MatMulNBits bits=8, blocks of 128; fp32
      activations), see quantize()

Both accept --window half|full (default half: the bidirectional sliding window of
transformers, |q - k| <= 256 on local layers; see graph.bidirectional_window).
"""

import argparse
import logging
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import onnx  # noqa: E402

import graph  # noqa: E402


def save(model, path):
    tmp = path + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, path)


def quantize(src, dst):
    # Weight-only int8: every MatMul with a constant weight becomes com.microsoft.MatMulNBits
    # (bits 8, symmetric, one fp32 scale per 128 input rows of each output column); the
    # activations stay fp32. quantize_dynamic(per_channel=True, QInt8) was measured first and
    # lost too much (cosine to fp32 as low as 0.64 per-channel, 0.96 per-tensor): Gemma's
    # hidden states have large outliers that per-tensor uint8 activation quantisation cannot hold.
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    q = MatMulNBitsQuantizer(onnx.load(src), bits=8, block_size=128, is_symmetric=True,
                             accuracy_level=0, op_types_to_quantize=("MatMul",))
    q.process()
    onnx.save(q.model.model, dst)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["fp32", "int8"])
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tmp", help="scratch dir for the int8 build (default: beside --out)")
    ap.add_argument("--window", choices=["half", "full"], default="half")
    a = ap.parse_args()
    logging.disable(logging.INFO)  # the quantizer logs every node at INFO

    t0 = time.time()
    if a.kind == "fp32":
        model = graph.build(a.checkpoint, embed="fp32", window_mode=a.window)
        save(model, a.out)
        print(f"build: fp32 graph {os.path.getsize(a.out) / 1e6:.0f} MB in {time.time() - t0:.0f} s", flush=True)
        return

    tmpdir = tempfile.mkdtemp(prefix="eg-int8-", dir=a.tmp or os.path.dirname(os.path.abspath(a.out)))
    pre = os.path.join(tmpdir, "pre.onnx")
    try:
        model = graph.build(a.checkpoint, embed="int8", window_mode=a.window)
        onnx.save(model, pre)
        del model
        t1 = time.time()
        print(f"build: graph with int8 embedding {os.path.getsize(pre) / 1e6:.0f} MB in {t1 - t0:.0f} s", flush=True)
        out_tmp = os.path.join(tmpdir, "q.onnx")
        quantize(pre, out_tmp)
        os.replace(out_tmp, a.out)
        print(f"build: quantised MatMul weights (MatMulNBits 8-bit) -> {os.path.getsize(a.out) / 1e6:.0f} MB in {time.time() - t1:.0f} s", flush=True)
    finally:
        for f in os.listdir(tmpdir):
            os.unlink(os.path.join(tmpdir, f))
        os.rmdir(tmpdir)


if __name__ == "__main__":
    main()
