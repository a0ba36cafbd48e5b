"""EmbeddingGemma-300M (Gemma 3 text encoder + sentence-transformers head) as an ONNX graph.

Built from the checkpoint's safetensors with numpy + onnx only (no torch, no transformers).
The computation follows transformers' Gemma3TextModel (modeling_gemma3.py) with
use_bidirectional_attention=True, then the sentence-transformers modules of the checkpoint:
1_Pooling (mean over attention_mask), 2_Dense and 3_Dense (no bias, identity activation),
Normalize (L2).

Interface (slm's Rust side depends on it):
  inputs  input_ids       int64 [batch, seq]
          attention_mask  int64 [batch, seq]   (1 = token, 0 = padding)
  output  sentence_embedding float32 [batch, 768], L2-normalised
"""

import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
NEG = -1e9  # additive mask value; exp(NEG - max) is exactly 0 in fp32


def load_config(ckpt):
    with open(os.path.join(ckpt, "config.json")) as f:
        cfg = json.load(f)
    # Checks of the assumptions this builder makes; a different checkpoint must fail loudly.
    assert cfg["model_type"] == "gemma3_text", cfg["model_type"]
    assert cfg["use_bidirectional_attention"] is True
    assert cfg["hidden_activation"] == "gelu_pytorch_tanh"
    assert not cfg.get("attention_bias")
    assert cfg.get("attn_logit_softcapping") is None
    assert cfg.get("rope_scaling") is None
    for sub in ("2_Dense", "3_Dense"):
        with open(os.path.join(ckpt, sub, "config.json")) as f:
            d = json.load(f)
        assert d["bias"] is False and d["activation_function"].endswith("Identity"), (sub, d)
    with open(os.path.join(ckpt, "1_Pooling", "config.json")) as f:
        p = json.load(f)
    assert p["pooling_mode_mean_tokens"] and p["include_prompt"], p
    assert not any(p[k] for k in p if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens")
    with open(os.path.join(ckpt, "modules.json")) as f:
        mods = [m["type"].rsplit(".", 1)[-1] for m in json.load(f)]
    assert mods == ["Transformer", "Pooling", "Dense", "Dense", "Normalize"], mods
    return cfg


def bidirectional_window(cfg, mode="half"):
    """Keys a query of a sliding (local) layer may see: |q - k| < the returned value.

    mode "half" (default, what transformers does since huggingface/transformers#40700,
    "[Gemma Embedding] Fix SWA", the day EmbeddingGemma was released): with
    use_bidirectional_attention, Gemma3TextConfig replaces sliding_window by
    (sliding_window // 2) + 1 and Gemma3TextModel ORs the sliding causal mask with
    _bidirectional_window_overlay, abs(q_idx - kv_idx) < sliding_window. So with
    sliding_window 512 a token sees keys at distance <= 256 on either side, the intended
    (SW // 2, SW // 2) window.
    mode "full": no window at all (every layer sees the whole text). Texts of at most
    sliding_window // 2 + 1 tokens give identical results either way.
    """
    if mode == "half":
        return cfg["sliding_window"] // 2 + 1
    if mode == "full":
        return 1 << 40
    raise ValueError(mode)


def rope_inv_freq(base, dim):
    # as Gemma3RotaryEmbedding.compute_default_rope_parameters, in float32 like torch
    exps = np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / np.float32(dim)
    return (np.float32(1.0) / (np.float32(base) ** exps)).astype(np.float32)


class G:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, p):
        self.n += 1
        return f"{p}_{self.n}"

    def const(self, arr, name=None):
        name = name or self.name("c")
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def op(self, op, inputs, name=None, **attrs):
        out = name or self.name(op)
        self.nodes.append(helper.make_node(op, inputs, [out], name=self.name(op + "_n"), **attrs))
        return out

    def ops(self, op, inputs, nout, **attrs):
        outs = [self.name(op) for _ in range(nout)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.name(op + "_n"), **attrs))
        return outs


def smooth_scale(act_absmax, weights, alpha):
    """SmoothQuant (Xiao et al. 2023, arXiv:2211.10438) migration scale for one MatMul input.

    act_absmax: [in] largest |activation| seen per input channel on the calibration texts;
    weights: torch-layout [out, in] matrices that read this input. Returns s [in] with
    s_j = a_j^alpha / w_j^(1 - alpha): dividing the activation by s and multiplying the
    weight rows by s leaves the product unchanged and evens out the channel outliers that
    per-tensor int8 activation quantisation cannot hold.
    """
    w = np.max(np.stack([np.abs(x).max(axis=0) for x in weights]), axis=0)
    a = np.maximum(np.asarray(act_absmax, np.float64), 1e-5)
    s = a ** alpha / np.maximum(w.astype(np.float64), 1e-5) ** (1.0 - alpha)
    return np.clip(s, 1e-2, 1e4).astype(np.float32)


def build(ckpt, embed="fp32", window_mode="half", smooth=None, alpha=0.5, taps=False):
    """Return an onnx.ModelProto. embed='fp32' keeps the embedding table as in the checkpoint;
    embed='int8' stores it as int8 with one fp32 scale per row (for the quantised model).

    taps=True adds one output per MatMul input site ("tap.<site>", the activations), for
    calibration. smooth={site: per-channel absmax} folds SmoothQuant scales (smooth_scale)
    into the weights: into the RMSNorm multiplier before q/k/v, gate/up and the head, into
    v_proj's rows before o_proj, into up_proj's rows before down_proj and into 2_Dense's rows
    before 3_Dense. The fp32 result is the same function; only the int8 error changes."""
    from safetensors import safe_open

    cfg = load_config(ckpt)
    H = cfg["hidden_size"]
    nh, nkv, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    eps = np.float32(cfg["rms_norm_eps"])
    window = bidirectional_window(cfg, window_mode)

    st = safe_open(os.path.join(ckpt, "model.safetensors"), "np")
    W = lambda k: st.get_tensor(k)
    d2 = safe_open(os.path.join(ckpt, "2_Dense", "model.safetensors"), "np").get_tensor("linear.weight")
    d3 = safe_open(os.path.join(ckpt, "3_Dense", "model.safetensors"), "np").get_tensor("linear.weight")

    g = G()
    f32 = lambda x: np.asarray(x, dtype=np.float32)
    one = g.const(f32(1.0), "one")

    def rmsnorm(x, w, div=None):
        # Gemma3RMSNorm: x * rsqrt(mean(x^2) + eps) * (1 + w), in fp32 (div: a smoothing scale)
        mult = f32(1.0) + f32(w)
        if div is not None:
            mult = mult / div
        # onnxruntime's SimplifiedLayerNormalization is exactly this (x / sqrt(mean(x^2) + eps)
        # * scale, fp32), as one kernel instead of six nodes: ~150 norms a pass
        return g.op("SimplifiedLayerNormalization", [x, g.const(f32(mult))], axis=-1, epsilon=float(eps))

    tap_outs = []

    def tap(site, t):
        if taps:
            tap_outs.append((site, t))

    def scale_for(site, weights):
        if smooth is None:
            return None
        return smooth_scale(smooth[site], weights, alpha)

    def linear(x, w):  # torch Linear weight [out, in] -> MatMul with [in, out]
        return g.op("MatMul", [x, g.const(np.ascontiguousarray(f32(w).T))])

    # ---- shapes -----------------------------------------------------------------------------
    ids, am = "input_ids", "attention_mask"
    shp = g.op("Shape", [ids])
    S = g.op("Gather", [shp, g.const(np.array([1], np.int64))], axis=0)
    S0 = g.op("Squeeze", [S, g.const(np.array([0], np.int64))])

    # ---- embedding, scaled by sqrt(hidden) in the embedding's dtype (fp32) --------------------
    emb = f32(W("embed_tokens.weight"))
    scale = np.float32(H ** 0.5)
    if embed == "fp32":
        x = g.op("Gather", [g.const(emb, "embed_tokens.weight"), ids], axis=0)
        x = g.op("Mul", [x, g.const(scale, "embed_scale")])
    elif embed == "int8":
        amax = np.abs(emb).max(axis=1)
        rs = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
        q = np.clip(np.rint(emb / rs[:, None]), -127, 127).astype(np.int8)
        xq = g.op("Gather", [g.const(q, "embed_tokens.q"), ids], axis=0)
        xs = g.op("Gather", [g.const((rs * scale).astype(np.float32), "embed_tokens.scale"), ids], axis=0)
        x = g.op("Mul", [g.op("Cast", [xq], to=TensorProto.FLOAT), g.op("Unsqueeze", [xs, g.const(np.array([-1], np.int64))])])
    else:
        raise ValueError(embed)
    del emb

    # ---- masks ------------------------------------------------------------------------------
    amf = g.op("Cast", [am], to=TensorProto.FLOAT)                          # [B,S]
    key_ok = g.op("Unsqueeze", [amf, g.const(np.array([1, 2], np.int64))])  # [B,1,1,S]
    pad_bias = g.op("Mul", [g.op("Sub", [one, key_ok]), g.const(f32(NEG))])  # 0 or NEG
    pos_i = g.op("Range", [g.const(np.array(0, np.int64)), S0, g.const(np.array(1, np.int64))])  # [S]
    dist = g.op("Abs", [g.op("Sub", [g.op("Unsqueeze", [pos_i, g.const(np.array([1], np.int64))]),
                                     g.op("Unsqueeze", [pos_i, g.const(np.array([0], np.int64))])])])
    in_win = g.op("Less", [dist, g.const(np.array(window, np.int64))])       # [S,S]
    win_bias = g.op("Where", [in_win, g.const(f32(0.0)), g.const(f32(NEG))])
    bias = {"full_attention": pad_bias,
            "sliding_attention": g.op("Add", [pad_bias, win_bias])}        # [B,1,S,S]

    # ---- rotary embeddings (positions 0..S-1, as cache_position) ------------------------------
    posf = g.op("Cast", [pos_i], to=TensorProto.FLOAT)
    posc = g.op("Unsqueeze", [posf, g.const(np.array([1], np.int64))])      # [S,1]
    rope = {}
    theta = {"full_attention": cfg["rope_theta"], "sliding_attention": cfg["rope_local_base_freq"]}
    for lt, base in theta.items():
        inv = rope_inv_freq(base, hd)[None, :]                             # [1,hd/2]
        fr = g.op("Mul", [posc, g.const(inv)])                            # [S,hd/2]
        e = g.op("Concat", [fr, fr], axis=-1)                             # [S,hd]
        rope[lt] = (g.op("Cos", [e]), g.op("Sin", [e]))

    def rotate(t, cs):
        cos, sin = cs
        a, b = g.ops("Split", [t, g.const(np.array([hd // 2, hd // 2], np.int64))], 2, axis=-1)
        rot = g.op("Concat", [g.op("Neg", [b]), a], axis=-1)
        return g.op("Add", [g.op("Mul", [t, cos]), g.op("Mul", [rot, sin])])

    def heads(t, n):  # [B,S,n*hd] -> [B,n,S,hd]
        r = g.op("Reshape", [t, g.const(np.array([0, 0, n, hd], np.int64))])
        return g.op("Transpose", [r], perm=[0, 2, 1, 3])

    scaling = g.const(f32(cfg["query_pre_attn_scalar"] ** -0.5))
    sh_merge = g.const(np.array([0, 0, nh * hd], np.int64))

    for i, lt in enumerate(cfg["layer_types"]):
        p = f"layers.{i}."
        res = x
        wq, wk, wv = (f32(W(p + f"self_attn.{n}_proj.weight")) for n in "qkv")
        wo = f32(W(p + "self_attn.o_proj.weight"))
        s_in = scale_for(f"attn_in.{i}", [wq, wk, wv])
        if s_in is not None:
            wq, wk, wv = wq * s_in[None, :], wk * s_in[None, :], wv * s_in[None, :]
        if smooth is not None:
            # o_proj reads softmax(.) @ v per head; with one kv head every query head's channel
            # d comes from v's row d, so one scale per head dim, shared by the nh heads.
            a = np.asarray(smooth[f"o_in.{i}"]).reshape(nh, hd).max(axis=0)
            s_o = smooth_scale(a, [wo.reshape(H * nh, hd)], alpha)
            wv = wv / s_o[:, None]
            wo = wo * np.tile(s_o, nh)[None, :]
        h = rmsnorm(x, W(p + "input_layernorm.weight"), s_in)
        tap(f"attn_in.{i}", h)
        q = heads(linear(h, wq), nh)
        k = heads(linear(h, wk), nkv)
        v = heads(linear(h, wv), nkv)
        q = rotate(rmsnorm(q, W(p + "self_attn.q_norm.weight")), rope[lt])
        k = rotate(rmsnorm(k, W(p + "self_attn.k_norm.weight")), rope[lt])
        # GQA: nkv == 1 key/value head broadcasts over the nh query heads in MatMul
        assert nh % nkv == 0
        if nkv != 1:
            raise NotImplementedError("only one kv head is handled (EmbeddingGemma has 1)")
        kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
        sc = g.op("Mul", [g.op("MatMul", [q, kt]), scaling])
        sc = g.op("Add", [sc, bias[lt]])
        pr = g.op("Softmax", [sc], axis=-1)
        o = g.op("MatMul", [pr, v])                                        # [B,nh,S,hd]
        o = g.op("Reshape", [g.op("Transpose", [o], perm=[0, 2, 1, 3]), sh_merge])
        tap(f"o_in.{i}", o)
        o = linear(o, wo)
        o = rmsnorm(o, W(p + "post_attention_layernorm.weight"))
        x = g.op("Add", [res, o])

        res = x
        wg, wu = f32(W(p + "mlp.gate_proj.weight")), f32(W(p + "mlp.up_proj.weight"))
        wd = f32(W(p + "mlp.down_proj.weight"))
        s_in = scale_for(f"mlp_in.{i}", [wg, wu])
        if s_in is not None:
            wg, wu = wg * s_in[None, :], wu * s_in[None, :]
        s_d = scale_for(f"down_in.{i}", [wd])
        if s_d is not None:  # down reads gelu(gate) * up, linear in up's output rows
            wu = wu / s_d[:, None]
            wd = wd * s_d[None, :]
        h = rmsnorm(x, W(p + "pre_feedforward_layernorm.weight"), s_in)
        tap(f"mlp_in.{i}", h)
        gt = linear(h, wg)
        up = linear(h, wu)
        # gelu, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        # com.microsoft FastGelu is this formula, one kernel instead of nine nodes
        act = g.op("FastGelu", [gt], domain="com.microsoft")
        dn = g.op("Mul", [act, up])
        tap(f"down_in.{i}", dn)
        m = linear(dn, wd)
        m = rmsnorm(m, W(p + "post_feedforward_layernorm.weight"))
        x = g.op("Add", [res, m])

    d2, d3 = f32(d2), f32(d3)
    s_h = scale_for("d2_in", [d2])          # mean pooling is linear: fold into the final norm
    if s_h is not None:
        d2 = d2 * s_h[None, :]
    s_3 = scale_for("d3_in", [d3])
    if s_3 is not None:
        d2 = d2 / s_3[:, None]
        d3 = d3 * s_3[None, :]
    x = rmsnorm(x, W("norm.weight"), s_h)                                  # last_hidden_state

    # ---- sentence-transformers head -----------------------------------------------------------
    mk = g.op("Unsqueeze", [amf, g.const(np.array([-1], np.int64))])       # [B,S,1]
    summed = g.op("ReduceSum", [g.op("Mul", [x, mk]), g.const(np.array([1], np.int64))], keepdims=0)
    cnt = g.op("ReduceSum", [mk, g.const(np.array([1], np.int64))], keepdims=0)
    cnt = g.op("Max", [cnt, g.const(f32(1e-9))])
    pooled = g.op("Div", [summed, cnt])                                    # [B,H]
    tap("d2_in", pooled)
    y = linear(pooled, d2)
    tap("d3_in", y)
    y = linear(y, d3)
    nrm = g.op("Sqrt", [g.op("ReduceSum", [g.op("Mul", [y, y]), g.const(np.array([1], np.int64))], keepdims=1)])
    nrm = g.op("Max", [nrm, g.const(f32(1e-12))])
    g.op("Div", [y, nrm], name="sentence_embedding")

    graph = helper.make_graph(
        g.nodes, "embeddinggemma_300m",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"])],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", H])]
        + [helper.make_tensor_value_info(t, TensorProto.FLOAT, None) for _, t in tap_outs],
        g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET),
                                                    helper.make_opsetid("com.microsoft", 1)],
                              producer_name="slm scripts/models/embeddinggemma")
    model.ir_version = 8
    if taps:
        model.metadata_props.add(key="taps", value=json.dumps({t: site for site, t in tap_outs}))
    model.doc_string = ("EmbeddingGemma-300M (google/embeddinggemma-300m) sentence embeddings; "
                        "weights under the Gemma Terms of Use, https://ai.google.dev/gemma/terms")
    return model
