"""Build EmbeddingGemma-300M as ONNX from the official sentence-transformers checkpoint.

No torch, no transformers: the checkpoint's safetensors are read with safetensors+numpy and
the graph is written with the onnx package (see graph.py for the architecture).

  python build.py fp32 --checkpoint CKPT --out fp32.onnx
      the full-precision graph (about 1.2 GB), used to check the architecture
  python build.py int8 --checkpoint CKPT --out model.onnx [--tmp DIR]
      the shipped graph (model.onnx, 1 MB, and its weights model.onnx.data, 309 MB): embedding table int8 with one fp32 scale per row;
      the MatMul weights int8 per output channel with dynamic int8 activations (onnxruntime
      quantize_dynamic), after SmoothQuant scales calibrated on calibration.txt are folded
      into the weights; down_proj gets 8-bit blockwise weights with int8 compute on per-token
      blocks instead (see quantize_down())

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


# SmoothQuant migration strength (Xiao et al. 2023). Measured on the reference fixture with the
# dynamic int8 graph: 0.5 -> min cosine 0.989, 0.75 -> 0.993 (down_proj fp32 in both).
SMOOTH_ALPHA = 0.75
# MatMuls the dynamic quantiser leaves alone. Quantising down_proj dynamically (it reads
# gelu(gate) * up, whose per-token scale varies most, and its output goes through Gemma's
# post-norm, which magnifies the error) took the fixture's worst row to 0.63 (0.84 with
# smoothing), because dynamic int8 has one activation scale per tensor; all the others together
# cost < 0.007. Recipe 2 kept it fp32 (about 20% of the transformer's weights and ~30% of a
# query's time); recipe 3 gives it the blockwise form below.
FP32_ROLES = ("down",)
# down_proj as MatMulNBits: 8-bit symmetric weights in blocks of DOWN_BLOCK along the input
# dimension, and accuracy_level 4, which quantises the *activations* to int8 per token and per
# block at run time, so one token's large activations no longer crush the others' precision.
# Measured on the reference fixture and 75 LoCoMo questions (2 intra-op threads, one query at
# a time, this 2-core machine): recipe 2 p50 23.1-26.2 ms, blocks of 32 20.7-24.0 ms (min
# cosine 0.9918), blocks of 128 19.0-22.6 ms (min cosine 0.9944, short rows 0.9986; recipe 2:
# 0.9929). 4-bit weights (blocks of 32) were faster still but fell to min cosine 0.93.
DOWN_BITS = 8
DOWN_BLOCK = 128
DOWN_ACCURACY_LEVEL = 4
# The weights go to MODEL.data beside the graph (tensors of at least this many bytes), which
# ONNX Runtime maps from the file instead of copying into the process: only the rows of the
# 201 MB int8 embedding table that a text uses become resident, and loading no longer holds
# the file's bytes and the tensors at once. Measured with onnxruntime 1.32 (session, tokenizer
# and three queries): 460 MB resident against 649 MB from one file; peak 537 against 718 MB.
EXTERNAL_FROM = 4096
ROLES = ("q", "k", "v", "o", "gate", "up", "down")  # the constant MatMuls of a layer, in order


def calibrate(checkpoint, texts_path, tmpdir, window):
    """Per-channel largest |activation| at every MatMul input, over calibration.txt."""
    import json

    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    model = graph.build(checkpoint, embed="int8", window_mode=window, taps=True)
    taps = json.loads({p.key: p.value for p in model.metadata_props}["taps"])
    path = os.path.join(tmpdir, "taps.onnx")
    onnx.save(model, path)
    del model
    tok = Tokenizer.from_file(os.path.join(checkpoint, "tokenizer.json"))
    so = ort.SessionOptions()
    so.intra_op_num_threads = os.cpu_count() or 1
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = list(taps)
    absmax = {}
    with open(texts_path, encoding="utf-8") as f:
        texts = [line.strip() for line in f if line.strip()]
    for text in texts:
        ids = np.array([tok.encode(text).ids], np.int64)
        outs = sess.run(names, {"input_ids": ids, "attention_mask": np.ones_like(ids)})
        for name, out in zip(names, outs):
            m = np.abs(out).reshape(-1, out.shape[-1]).max(axis=0)
            site = taps[name]
            absmax[site] = np.maximum(absmax[site], m) if site in absmax else m
    del sess
    os.unlink(path)
    return absmax, len(texts)


def quantize(src, dst):
    """Dynamic int8 (weights per output channel, activations per tensor at run time), the
    form onnxruntime runs fastest on AVX2 CPUs: measured here 5x faster a query than 8-bit
    weight-only MatMulNBits at accuracy level 0 (recipe 1), which unpacks its weights to fp32
    on every call."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    m = onnx.load(src, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    const = [n for n in m.graph.node if n.op_type == "MatMul" and n.input[1] in inits]
    layers = (len(const) - 2) // len(ROLES)  # + 2_Dense and 3_Dense at the end
    assert layers * len(ROLES) + 2 == len(const), len(const)
    keep = [n.name for i, n in enumerate(const[:-2]) if ROLES[i % len(ROLES)] in FP32_ROLES]
    del m
    quantize_dynamic(src, dst, weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=["MatMul"], nodes_to_exclude=keep,
                     extra_options={"MatMulConstBOnly": True,
                                    # shape inference does not know the contrib ops
                                    "DefaultTensorType": onnx.TensorProto.FLOAT})


def quantize_down(src, dst):
    """The MatMuls quantize() left in fp32 (down_proj) as MatMulNBits (see DOWN_BLOCK)."""
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    m = onnx.load(src)
    inits = {i.name for i in m.graph.initializer}
    left = [n.name for n in m.graph.node if n.op_type == "MatMul" and n.input[1] in inits]
    q = MatMulNBitsQuantizer(m, bits=DOWN_BITS, block_size=DOWN_BLOCK, is_symmetric=True,
                             accuracy_level=DOWN_ACCURACY_LEVEL, nodes_to_include=left)
    q.process()
    onnx.save_model(q.model.model, dst, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=os.path.basename(dst) + ".data", size_threshold=EXTERNAL_FROM)
    return len(left)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["fp32", "int8"])
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tmp", help="scratch dir for the int8 build (default: beside --out)")
    ap.add_argument("--window", choices=["half", "full"], default="half")
    ap.add_argument("--calibration", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "calibration.txt"),
                    help="texts for the SmoothQuant activation ranges (int8 only)")
    a = ap.parse_args()
    logging.disable(logging.WARNING)  # the quantizer logs every node, and advice we follow, below ERROR

    t0 = time.time()
    if a.kind == "fp32":
        model = graph.build(a.checkpoint, embed="fp32", window_mode=a.window)
        save(model, a.out)
        print(f"build: fp32 graph {os.path.getsize(a.out) / 1e6:.0f} MB in {time.time() - t0:.0f} s", flush=True)
        return

    tmpdir = tempfile.mkdtemp(prefix="eg-int8-", dir=a.tmp or os.path.dirname(os.path.abspath(a.out)))
    pre = os.path.join(tmpdir, "pre.onnx")
    try:
        absmax, n = calibrate(a.checkpoint, a.calibration, tmpdir, a.window)
        t1 = time.time()
        print(f"build: calibrated {len(absmax)} MatMul inputs on {n} texts in {t1 - t0:.0f} s", flush=True)
        model = graph.build(a.checkpoint, embed="int8", window_mode=a.window, smooth=absmax,
                            alpha=SMOOTH_ALPHA)
        onnx.save(model, pre)
        del model
        t2 = time.time()
        print(f"build: smoothed graph with int8 embedding {os.path.getsize(pre) / 1e6:.0f} MB in {t2 - t1:.0f} s", flush=True)
        out_tmp = os.path.join(tmpdir, "q.onnx")
        quantize(pre, out_tmp)
        name = os.path.basename(a.out)
        final = os.path.join(tmpdir, "final")
        os.mkdir(final)
        n_down = quantize_down(out_tmp, os.path.join(final, name))
        # The weights first, then the graph that names them: a graph is never beside
        # another build's weights.
        os.replace(os.path.join(final, name + ".data"), a.out + ".data")
        os.replace(os.path.join(final, name), a.out)
        os.rmdir(final)
        size = os.path.getsize(a.out) + os.path.getsize(a.out + ".data")
        print(f"build: int8 MatMuls (dynamic, per channel; {n_down} down_proj {DOWN_BITS}-bit blockwise) -> {size / 1e6:.0f} MB in {time.time() - t2:.0f} s", flush=True)
    finally:
        for f in os.listdir(tmpdir):
            os.unlink(os.path.join(tmpdir, f))
        os.rmdir(tmpdir)


if __name__ == "__main__":
    main()
