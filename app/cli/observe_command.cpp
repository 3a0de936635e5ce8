// gpurec observe: ALEobserve's job. Each family's observed clade counts go to <prefix>/ale/<family>.ale,
// with a families file pointing at them, so that later runs read the counts instead of the samples.
#include "cli_common.hpp"
#include "commands.hpp"

#include "ccp/ale_file.hpp"
#include "io/output_file.hpp"
#include "io/output_folder.hpp"
#include "io/result_writer.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace gpurec::cli {

void registerObserve(CLI::App& root) {
    struct Options {
        InputOptions input;
        OutputOptions output;
    };
    auto o = std::make_shared<Options>();
    CLI::App* app = root.add_subcommand(
        "observe",
        "Write every family's observed clade counts as an ALE .ale file, plus a families file for them");
    addInputOptions(*app, o->input);
    addOutputOptions(*app, o->output);
    app->callback([o] {
        // The .ale layout holds the counts of unrooted samples only (its root splits are implied,
        // equally weighted).
        if (o->input.rooting != "UNIFORM")
            throw std::invalid_argument("observe writes .ale files, which hold unrooted samples: it needs "
                                        "--gene-tree-rooting UNIFORM, not " +
                                        o->input.rooting);
        const std::string& outdir = o->output.outdir;
        prepareOutputs(o->output, {"ale", "families.txt", "result.json"});
        LoadedInput in = loadOrExplain(o->input, 0);
        const Dataset& data = *in.dataset;
        ensureDirectory(outdir + "/ale");
        std::string families = "[FAMILIES]\n";
        nlohmann::json list = nlohmann::json::array();
        nlohmann::json notWritten = nlohmann::json::array();
        for (const GeneFamily& f : data.families) {
            const std::string file = "ale/" + fileStem(f.name) + ".ale";
            try {
                writeAleFile(outdir + "/" + file, f.clades);
            } catch (const std::invalid_argument& e) { // one gene, or a name with a blank: only this family
                std::fprintf(stderr, "gpurec: warning: family %s not written: %s\n", f.name.c_str(),
                             e.what());
                notWritten.push_back({{"name", f.name}, {"reason", e.what()}});
                continue;
            }
            families += "- " + f.name + "\ngene_tree = " + file + "\n";
            // The families file lives elsewhere than the input's: its mapping paths are absolute.
            if (!f.mappingPath.empty())
                families +=
                    "mapping = " + std::filesystem::absolute(f.mappingPath).lexically_normal().string() +
                    "\n";
            list.push_back({{"name", f.name},
                            {"ale", file},
                            {"trees", f.clades.treeCount},
                            {"genes", f.clades.geneCount()},
                            {"clades", f.clades.cladeCount()},
                            {"splits", f.clades.splitCount()}});
        }
        writeFileAtomically(outdir + "/families.txt", families);
        nlohmann::json j = {{"command", "observe"}, {"families", list}, {"not_written", notWritten}};
        addInputReport(j, o->input, in);
        writeJson(outdir + "/result.json", j);
        std::printf("%zu families observed\nwrote %s/ale, %s/families.txt and %s/result.json\n", list.size(),
                    outdir.c_str(), outdir.c_str(), outdir.c_str());
    });
}

} // namespace gpurec::cli
