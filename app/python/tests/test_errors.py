"""Bad inputs raise Python exceptions that carry the engine's message."""
import pytest

import gpurec
from conftest import cli_failure


def test_a_malformed_species_tree_raises_input_error_with_its_location(tmp_path, trees2):
    bad = tmp_path / "species.nwk"
    bad.write_text("((A,B),C;\n")
    with pytest.raises(gpurec.InputError) as error:
        gpurec.GeneReconModel(species_tree=bad, gene_trees=[trees2["gene"]], device="cpu")
    assert str(error.value).startswith(f"{bad}:1:")
    assert error.value.file == str(bad) and error.value.line == 1 and error.value.column > 0
    assert isinstance(error.value, ValueError)
    # The CLI says the same.
    assert str(error.value) in cli_failure("eval", "-s", bad, trees2["gene"])


def test_a_malformed_gene_tree_raises_in_strict_mode_and_is_skipped_otherwise(tmp_path, simulated2, trees2):
    bad = tmp_path / "g.nwk"
    bad.write_text("(a,b\n")
    with pytest.raises(gpurec.InputError, match=f"^{bad}:"):
        gpurec.GeneReconModel(species_tree=trees2["species"], gene_trees=[trees2["gene"], bad], device="cpu")
    model = gpurec.GeneReconModel(species_tree=trees2["species"], gene_trees=[trees2["gene"], bad], device="cpu",
                                  strict=False)
    assert len(model.family_names) == 1 and model.engine.skipped[0]["file"] == str(bad)


def test_missing_files_unknown_modes_and_devices_raise():
    with pytest.raises(gpurec.InputError, match="nowhere.nwk"):
        gpurec.GeneReconModel(species_tree="nowhere.nwk", gene_trees=["g.nwk"], device="cpu")
    with pytest.raises(ValueError, match="mode must be global, specieswise or genewise"):
        gpurec.GeneReconModel(species_tree="nowhere.nwk", gene_trees=["g.nwk"], mode="perfamily")


def test_an_unknown_device_raises_the_cli_message(trees2):
    message = cli_failure("eval", "-s", trees2["species"], "-f", trees2["families"], "--device", "tpu")
    with pytest.raises(ValueError) as error:
        gpurec.GeneReconModel(species_tree=trees2["species"], gene_trees=[trees2["gene"]], device="tpu")
    assert str(error.value) in message
