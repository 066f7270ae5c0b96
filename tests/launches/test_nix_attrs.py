"""Nix attribute sets read as mappings (kvlint.launches.nix_attrs): each key and value at its place, expressions
passed over, hostile text bounded."""

from __future__ import annotations

from kvlint.launches import read_path
from kvlint.launches.nix_attrs import read_attrsets

_HOST = """\
{ config, lib, pkgs, ... }:
let
  cache = "/var/cache/vllm";
in
{
  codgician.services.vllm = {
    enable = true;
    image = "vllm/vllm-openai:v0.10.2";
    instances = {
      qwen-chat = {
        model = "Qwen/Qwen2.5-7B-Instruct";
        maxModelLen = 16384;
        gpuMemoryUtilization = 0.85;
        extraArgs = [ "--enable-prefix-caching" ];
      };
      embeddings = lib.mkIf config.embeddings.enable {
        model = "Qwen/Qwen3-Embedding-0.6B";
        maxModelLen = 8192;
        maxNumSeqs = 64;
      };
    };
  };
  # inherit (pkgs) vllm;
  environment.systemPackages = with pkgs; [ git ];
}
"""


def test_an_attribute_set_is_read_with_its_places():
    yf = read_attrsets("host.nix", _HOST)
    assert yf is not None
    vllm = yf.docs[0].path("codgician", "services", "vllm")
    assert vllm is not None and vllm.get("enable").value is True
    chat = vllm.path("instances", "qwen-chat")
    assert chat.get("maxModelLen").value == 16384 and chat.get("gpuMemoryUtilization").value == 0.85
    assert chat.get("model").text == "Qwen/Qwen2.5-7B-Instruct" and chat.get("model").span.line == 11
    assert [i.text for i in chat.get("extraArgs").items] == ["--enable-prefix-caching"]
    assert vllm.path("instances", "embeddings", "model").text == "Qwen/Qwen3-Embedding-0.6B"  # mkIf's body


def test_a_nixos_host_running_the_engine_image_per_instance_is_one_launch_each(tmp_path):
    """Turn 37's K332 (a NixOS host's vLLM module settings): each instance under the engine's image is a launch,
    its camelCase keys the engine's flags, each at its line."""
    path = tmp_path / "system.nix"
    path.write_text(_HOST)
    deps = read_path(str(path)).deployments
    assert [(d.model, d.get("max_model_len")) for d in deps] == [("Qwen/Qwen2.5-7B-Instruct", 16384),
                                                                 ("Qwen/Qwen3-Embedding-0.6B", 8192)]
    assert deps[0].image == "vllm/vllm-openai:v0.10.2" and deps[0].get("enable_prefix_caching") is True
    assert deps[0].settings["max_model_len"].span.line == 12


def test_hostile_nix_text_ends_without_an_error():
    for text in ("{ " * 20000, "{ a = " * 5000 + "1;", "let a = 1; " * 3000, "[ { ''unclosed",
                 "{ a.b.c.d = { x = 1; }; a.b = 2; }", "} ] ) ; = :", "{ inherit x; y = { z = ''a'' ; } }"):
        read_attrsets("x.nix", text)  # no exception, no hang
