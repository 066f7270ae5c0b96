"""Parameters of a multimodal model's vision tower, counted from its vision_config.

The engines load the tower with the decoder, so its weights take memory the KV pool cannot have.
"""

from __future__ import annotations

from typing import Any


def vision_params(vision: dict[str, Any] | None, text_hidden: int) -> int:
    """Parameters of a ViT-style vision tower plus its projector into the text width.

    Counted from the shapes the config gives (layers x (attention 4h^2 + MLP) + patch embedding +
    projector); an approximation, since towers differ in biases, position tables and merger MLPs.
    """
    if not isinstance(vision, dict):
        return 0
    hidden = int(vision.get("hidden_size") or vision.get("embed_dim") or 0)
    layers = int(vision.get("num_hidden_layers") or vision.get("depth") or 0)
    layers += int(vision.get("num_global_layers") or 0)  # Mllama: gated global layers after the local ones
    inter = int(vision.get("intermediate_size") or 4 * hidden)
    if not hidden or not layers:
        return 0
    gated = str(vision.get("hidden_act", "")) == "silu" and "depth" in vision  # Qwen2.5-VL SwiGLU blocks
    mlp = (3 if gated else 2) * hidden * inter + inter + hidden
    attn = 4 * hidden * hidden + 4 * hidden
    per_layer = attn + mlp + 4 * hidden
    patch = int(vision.get("patch_size") or 14)
    channels = int(vision.get("num_channels") or vision.get("in_chans") or 3)
    temporal = int(vision.get("temporal_patch_size") or 1)
    embed = channels * temporal * patch * patch * hidden
    positions = (int(vision.get("image_size") or 0) // patch) ** 2 * hidden
    positions += int(vision.get("num_position_embeddings") or 0) * hidden  # Qwen3-VL's learned position table
    tiles = _tile_positions(vision, hidden, patch)
    # Qwen3-VL's DeepStack: one more merger (the projector's shape) per deepstack_visual_indexes entry
    deepstack = len(vision.get("deepstack_visual_indexes") or ())
    return layers * per_layer + embed + positions + tiles + (1 + deepstack) * _projector(vision, hidden, text_hidden)


def _tile_positions(vision: dict[str, Any], hidden: int, patch: int) -> int:
    """Mllama's aspect-ratio tables: a gated position embedding per (aspect ratio, tile, patch) and the
    pre/post-tile embeddings per (aspect ratio, tile); one row more than the supported ratios for padding."""
    ratios, tiles = vision.get("supported_aspect_ratios"), vision.get("max_num_tiles")
    if not isinstance(ratios, list) or not isinstance(tiles, int) or not vision.get("image_size"):
        return 0
    patches = (int(vision["image_size"]) // patch) ** 2 + 1  # + the class token
    return (len(ratios) + 1) * tiles * hidden * (patches + 2)


def _projector(vision: dict[str, Any], hidden: int, text_hidden: int) -> int:
    if vision.get("out_hidden_size"):  # Qwen2.5-VL merger: (4h -> 4h -> out)
        merged = hidden * int(vision.get("spatial_merge_size") or 2) ** 2
        return merged * merged + merged * int(vision["out_hidden_size"])
    if vision.get("projector_output_dim"):  # Llama-4: vision adapter MLP + projector to text width
        return 2 * int(vision["projector_input_dim"]) * int(vision["projector_output_dim"]) + int(
            vision.get("vision_output_dim") or 0
        ) * int(text_hidden)
    if vision.get("vision_output_dim"):  # Mllama: one biased linear from the concatenated layer outputs
        return (int(vision["vision_output_dim"]) + 1) * int(text_hidden)
    merge = vision.get("merge_kernel_size") or [1, 1]
    width = hidden * int(merge[0]) * int(merge[1])
    return width * width + width * int(text_hidden) if width != hidden else hidden * int(text_hidden)
