"""Export a trained reader checkpoint to int8 ONNX plus the four tokenizer files.

  export.py --base BASE_DIR --ckpt CKPT_DIR --out OUT_DIR
Writes OUT_DIR/model.onnx (int8 dynamic quantization, onnxruntime.quantization),
tokenizer.json (padding off, truncation only_second at 128), config.json,
special_tokens_map.json, tokenizer_config.json; checks int8 vs fp32 logits.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from train import MAXLEN, encode, load_tokenizer  # noqa: E402


class Wrap(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.m(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-tensor", dest="per_channel", action="store_false", help="per-tensor weight scales (default: per-channel; per-tensor lost up to 2.3 logits here)")
    args = ap.parse_args()
    from transformers import BertForSequenceClassification
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    torch.set_num_threads(2)
    os.makedirs(args.out, exist_ok=True)
    model = BertForSequenceClassification.from_pretrained(args.ckpt, attn_implementation="eager").eval()
    tok = load_tokenizer(args.base)
    pairs = [("what port does staging db use", "The staging database listens on port 5433"),
             ("When is Maria's birthday?", "Maria owns the billing service"),
             ("who owns billing?", "Maria owns the billing service and the invoicing cron jobs.")]
    enc = encode(tok, pairs)
    tmp = tempfile.mkdtemp()
    fp32 = os.path.join(tmp, "fp32.onnx")
    ex = tuple(torch.from_numpy(enc[k]) for k in ("input_ids", "attention_mask", "token_type_ids"))
    dyn = {k: {0: "batch", 1: "seq"} for k in ("input_ids", "attention_mask", "token_type_ids")}
    dyn["logits"] = {0: "batch"}
    with torch.no_grad():
        ref = model(**{k: torch.from_numpy(v) for k, v in enc.items()}).logits.numpy()
    torch.onnx.export(Wrap(model).eval(), ex, fp32, input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["logits"], dynamic_axes=dyn, opset_version=17, dynamo=False)
    out_onnx = os.path.join(args.out, "model.onnx")
    model.eval()
    # weights-only MatMuls (activation x activation attention products stay fp32, as in the base model's int8 graph)
    quantize_dynamic(fp32, out_onnx, weight_type=QuantType.QInt8, per_channel=args.per_channel,
                     extra_options={"MatMulConstBOnly": True})
    for path in (fp32, out_onnx):
        s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        got = s.run(["logits"], enc)[0]
        print(os.path.basename(path), "logits", got[:, 0].round(3), "torch", ref[:, 0].round(3),
              "max|diff|", float(np.abs(got - ref).max()))
    print("model.onnx size MB", os.path.getsize(out_onnx) / 1e6)
    shutil.rmtree(tmp)

    # tokenizer files
    t = json.load(open(os.path.join(args.base, "tokenizer.json")))
    t["padding"] = None
    t["truncation"] = {"direction": "Right", "max_length": MAXLEN, "strategy": "OnlySecond", "stride": 0}
    json.dump(t, open(os.path.join(args.out, "tokenizer.json"), "w"), ensure_ascii=False)
    tc = json.load(open(os.path.join(args.base, "tokenizer_config.json")))
    tc["model_max_length"] = MAXLEN
    json.dump(tc, open(os.path.join(args.out, "tokenizer_config.json"), "w"), indent=2)
    shutil.copy(os.path.join(args.base, "special_tokens_map.json"), os.path.join(args.out, "special_tokens_map.json"))
    cfg = model.config.to_dict()
    cfg["architectures"] = ["BertForSequenceClassification"]
    for k in ("torch_dtype", "dtype", "transformers_version", "_name_or_path"):
        cfg.pop(k, None)
    json.dump(cfg, open(os.path.join(args.out, "config.json"), "w"), indent=2, sort_keys=True)
    # the shipped tokenizer.json must reproduce the training encoding
    from tokenizers import Tokenizer

    t2 = Tokenizer.from_file(os.path.join(args.out, "tokenizer.json"))
    e1 = t2.encode(*pairs[0])
    e2 = tok.encode(*pairs[0])
    assert e1.ids == e2.ids and e1.type_ids == e2.type_ids, "tokenizer mismatch"
    print("tokenizer check ok:", e1.tokens)


if __name__ == "__main__":
    main()
