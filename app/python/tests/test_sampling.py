"""sample_reconciliations draws what `gpurec sample` draws for the same seed."""
import json

import pytest

import gpurec
from conftest import run_cli


def test_samples_equal_the_cli_samples(simulated2, tmp_path):
    run_cli("sample", "-s", simulated2["species"], "-f", simulated2["families"], "--d", 0.05, "--l", 0.2, "--t",
            0.02, "--samples", 5, "--seed", 42, "--device", "cpu", "-p", tmp_path / "per_sample")
    run_cli("sample", "-s", simulated2["species"], "-f", simulated2["families"], "--d", 0.05, "--l", 0.2, "--t",
            0.02, "--samples", 5, "--seed", 42, "--device", "cpu", "--xml-per-family", "-p", tmp_path / "per_family")
    result = json.loads((tmp_path / "per_sample" / "result.json").read_text())
    model = gpurec.GeneReconModel(species_tree=simulated2["species"], families=simulated2["families"],
                                  rates=(0.05, 0.2, 0.02), device="cpu")
    families = gpurec.sample_reconciliations(model, samples=5, seed=42)
    assert [f["family"] for f in families] == [f["name"] for f in result["families"]]
    for fam, cli in zip(families, result["families"]):
        assert fam["log_likelihood"] == cli["ll_nats"]
        assert len(fam["reconciliations"]) == 5
        name = fam["family"]
        whole = (tmp_path / "per_family" / "reconciliations" / "all" / f"{name}_samples.xml").read_text()
        assert fam["recphyloxml"] == whole
        folder = tmp_path / "per_sample" / "reconciliations" / "all"
        files = [folder / f"{name}_sample_{i}.xml" for i in range(5)]
        assert [r["recphyloxml"] for r in fam["reconciliations"]] == [f.read_text() for f in files]
        for r in fam["reconciliations"]:
            nodes = r["nodes"]
            leaves = [n for n in nodes if n["events"][-1]["type"] == "Leaf"]
            assert leaves and all(n["name"] for n in leaves)
            assert r["nodes"][r["root"]]["parent"] == -1
            assert r["origin_species"] in model.species_names
    # Another seed, other draws; the same seed again, the same draws.
    again = model.sample_reconciliations(samples=5, seed=42, families=families[0]["family"])
    assert again[0]["recphyloxml"] == families[0]["recphyloxml"]
    other = model.sample_reconciliations(samples=5, seed=43, families=[families[0]["family"]])
    assert other[0]["recphyloxml"] != families[0]["recphyloxml"]


def test_bad_sampling_requests_raise(trees2):
    model = gpurec.GeneReconModel(species_tree=trees2["species"], gene_trees=[trees2["gene"]], device="cpu")
    with pytest.raises(ValueError, match="family 'nope' is not in the input"):
        model.sample_reconciliations(families=["nope"])
    with pytest.raises(ValueError):
        model.sample_reconciliations(samples=0)
    model.theta = model.theta * 0 + 5.0  # rates 32, above the sampling bound 2
    with pytest.raises(ValueError):
        model.sample_reconciliations(samples=1)
