"""A llama, qwen2 or qwen3 GGUF model on a Vulkan device, from Python.

    import weft
    from weft.attention import Model, Decoder, stream
    model = Model.load("model.gguf")                  # weights mapped, tokenizer from the file
    dec = Decoder(weft.Device(), model, context=512)
    dec.set_sampling(temperature=0.8, top_k=40, seed=1)
    for piece in stream(dec, model, "Hello", 32):     # bytes of each token as it is sampled
        print(piece.decode(errors="replace"), end="", flush=True)

Decoder.generate(prompt_ids, n) does the loop without returning to Python per token;
Model.reference_logits(ids) is the CPU reference (f64) to check a device against.

A token VM workflow (UDPL prompts, docs/token_vm_udpl.md) steers the model on the device, K
steps per submit, tool calls answered between submits:

    steered = Steered(weft.Device(), model, "prompts.toml", flow="flow.toml",
                      resources={"problem": "What is 17 * 23 + 4?"}, steps_per_submit=16)
    steered.set_tool("calculator", my_calculator)     # optional: calculator/calc are built in
    steered.run(max_steps=2000)
    print(steered.generative_sequence().decode(errors="replace"), steered.extract())
"""
from typing import Any, Iterator, Sequence, Union

import numpy as np
import numpy.typing as npt

from ._arguments import argument_error
from ._weft.attention import AttentionDecoder as Decoder
from ._weft.attention import AttentionModel as Model
from ._weft.attention import AttentionSteered as Steered
from ._weft.attention import write_seeded_model


def stream(decoder: Decoder, model: Model, prompt: Union[str, Sequence[int], npt.NDArray[np.integer[Any]]], n: int,
           stop_at_eos: bool = True) -> Iterator[bytes]:
    """Prefills `prompt` (text, or token ids as a sequence or an integer array), then yields each
    sampled token's bytes, n tokens at most (fewer when the model samples EOS)."""
    if not isinstance(decoder, Decoder) or not isinstance(model, Model):
        raise argument_error(f"stream: decoder and model must be a weft.attention Decoder and Model, got "
                             f"{type(decoder).__name__} and {type(model).__name__}")
    if not isinstance(n, int) or isinstance(n, bool) or not isinstance(stop_at_eos, (bool, int)):
        raise argument_error(f"stream: n must be an int and stop_at_eos a bool, got {type(n).__name__} and "
                             f"{type(stop_at_eos).__name__}")
    decoder.prefill(model.tokenize(prompt) if isinstance(prompt, str) else prompt)
    for i in range(n):
        token = decoder.sampled
        if stop_at_eos and model.eos is not None and token == model.eos:
            return
        yield model.token_text(token)
        if i + 1 < n:
            decoder.step(token)


__all__ = ["Model", "Decoder", "Steered", "stream", "write_seeded_model"]
