// gpurec-workbench: the Qt workbench. Opens the data given on the command line (a species tree
// with -s and families with -f, or files and folders to recognise), a session, or starts empty.
// After a run that did not exit cleanly it first offers to restore the autosaved session.
#include "benchmark_tour.hpp"
#include "data/origination.hpp"
#include "panels/run_panel.hpp"
#include "screenshot_tour.hpp"
#include "session/crash_recovery.hpp"
#include "window/workbench_window.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTimer>
#include <cstdio>
#include <stdexcept>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName("gpurec");
    QApplication::setApplicationName("gpurec-workbench");
    QApplication::setApplicationVersion(GPUREC_VERSION);
    QApplication::setWindowIcon(QIcon(":/icons/gpurec-workbench.svg"));

    QCommandLineParser parser;
    parser.setApplicationDescription("Gene-tree / species-tree reconciliation workbench (undated DTL model)");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption species({"s", "species-tree"}, "Species tree (Newick).", "file");
    QCommandLineOption families({"f", "families"}, "AleRax families file.", "file");
    QCommandLineOption device("device", "auto, cpu, cuda or cuda:N (default auto).", "device", "auto");
    QCommandLineOption minCovered("min-covered-species",
                                  "Leave out families covering fewer species (default 4).", "n", "4");
    // The gpurec CLI's names and defaults for the same settings.
    QCommandLineOption rooting("gene-tree-rooting",
                               "UNIFORM (default: every rooting of unrooted trees), ROOTED (the trees' own "
                               "roots) or MAD (every rooting, weighted by its MAD deviation).",
                               "rooting", "UNIFORM");
    QCommandLineOption constraint(
        "transfer-constraint", "PARENTS (default), NONE or RELDATED (by the species tree's branch lengths).",
        "constraint", "PARENTS");
    QCommandLineOption origination("origination",
                                   "UNIFORM (default: any species node), ROOT, LCA (of the species a family "
                                   "covers) or OPTIMIZE (any node, with fitted weights).",
                                   "origination", "UNIFORM");
    QCommandLineOption categories("speciation-gamma-categories",
                                  "Speciation rate categories: the likelihood is the mean over K categories "
                                  "of Gamma(alpha, alpha) speciation weights (default 1).",
                                  "K", "1");
    QCommandLineOption recModel({"r", "rec-model"}, "UndatedDTL (default) or UndatedDL (no transfers).",
                                "model", "UndatedDTL");
    QCommandLineOption noDup("no-dup", "No duplications (D = 0, and so no DL terms).");
    QCommandLineOption noDl("no-dl", "No duplication-loss term in the clade equations.");
    QCommandLineOption noTl("no-tl", "No transfer-loss terms in the clade equations.");
    QCommandLineOption fractionMissing("fraction-missing-file",
                                       "Per species leaf 'label fraction': the share of its genes missing.",
                                       "file");
    QCommandLineOption highways("highways-file",
                                "Transfer highways, 'src, dest, proba' per line: extra transfers with "
                                "their own rates (with --pairwise-transfers, the pairs' starting rates).",
                                "file");
    QCommandLineOption pairwise("pairwise-transfers", "One transfer rate per donor -> recipient pair.");
    QCommandLineOption prune("prune-species-tree", "Each family on the species tree pruned to its species.");
    QCommandLineOption screenshots(
        "screenshots", "Take the user guide's screenshots into this folder, then quit.", "folder");
    QCommandLineOption benchmark(
        "benchmark",
        "Measure load time, memory, frame times and optimiser iterations on the data "
        "given, write the figures to this JSON file, then quit.",
        "file");
    QCommandLineOption benchmarkIterations(
        "benchmark-iterations", "Optimiser iterations the benchmark times (default 10; 0: none).", "n", "10");
    // Not "--session": QGuiApplication takes that one (X11 session management).
    QCommandLineOption session("open-session", "Open this session file.", "file");
    QCommandLineOption restore("restore-autosave",
                               "After a run that did not exit cleanly: ask (default) whether to restore "
                               "the autosaved session, or answer yes or no.",
                               "answer", "ask");
    parser.addOptions(
        {species,    families, device,      minCovered, rooting, constraint,      origination,
         categories, recModel, noDup,       noDl,       noTl,    fractionMissing, highways,
         pairwise,   prune,    screenshots, session,    restore, benchmark,       benchmarkIterations});
    parser.addPositionalArgument(
        "paths", "Gene-tree files or folders, or a dataset folder (species tree + families file).",
        "[paths...]");
    parser.process(app);
    gpurec::ui::RestoreAnswer answer{};
    gpurec::ui::LoadRequest request;
    try {
        request.options.rooting = gpurec::parseGeneTreeRooting(parser.value(rooting).toStdString());
        request.constraint = gpurec::parseTransferConstraint(parser.value(constraint).toStdString());
        request.options.origination = gpurec::parseOrigination(parser.value(origination).toStdString());
        bool whole = false;
        request.options.speciationCategories = parser.value(categories).toInt(&whole);
        if (!whole || request.options.speciationCategories < 1)
            throw std::invalid_argument("--speciation-gamma-categories expects a whole number ≥ 1, got '" +
                                        parser.value(categories).toStdString() + "'");
        request.options.events.recModel = gpurec::parseRecModel(parser.value(recModel).toStdString());
        request.options.events.noDup = parser.isSet(noDup);
        request.options.events.noDl = parser.isSet(noDl);
        request.options.events.noTl = parser.isSet(noTl);
        request.options.events.pairwiseTransfers = parser.isSet(pairwise);
        request.options.pruneSpeciesTree = parser.isSet(prune);
        request.options.events.validate();
        // The scripted tours run unattended on the data given: nothing to ask.
        answer = parser.isSet(screenshots) || parser.isSet(benchmark)
                     ? gpurec::ui::RestoreAnswer::Discard
                     : gpurec::ui::parseRestoreAnswer(parser.value(restore));
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "gpurec-workbench: error: %s\n", e.what());
        return 2;
    }

    const gpurec::ui::RunMarker marker; // removed again when main returns: a clean exit
    gpurec::ui::WorkbenchWindow window;
    window.runPanel()->setDevice(parser.value(device));
    window.show();
    if (gpurec::ui::offerAutosaveRestore(window, marker, answer)) return app.exec();
    if (parser.isSet(session)) {
        window.openSession(parser.value(session));
        return app.exec();
    }

    request.paths.speciesTree = parser.value(species).toStdString();
    request.paths.familiesFile = parser.value(families).toStdString();
    request.paths.fractionMissingFile = parser.value(fractionMissing).toStdString();
    request.paths.highwaysFile = parser.value(highways).toStdString();
    for (const QString& p : parser.positionalArguments())
        request.paths.geneTrees.push_back(p.toStdString());
    request.options.minCoveredSpecies = parser.value(minCovered).toInt();
    if (parser.isSet(species)) {
        if (request.paths.familiesFile.empty() && request.paths.geneTrees.empty())
            window.showOpenDialog(&request);
        else
            window.openInput(request);
    } else if (!parser.positionalArguments().isEmpty()) {
        window.openPaths(parser.positionalArguments());
    }
    if (parser.isSet(screenshots))
        QTimer::singleShot(0, &window, [&window, folder = parser.value(screenshots)] {
            QApplication::exit(gpurec::ui::runScreenshotTour(window, folder));
        });
    if (parser.isSet(benchmark))
        QTimer::singleShot(0, &window, [&window, &parser, &benchmark, &benchmarkIterations] {
            QApplication::exit(gpurec::ui::runBenchmarkTour(
                window, {parser.value(benchmark), parser.value(benchmarkIterations).toInt()}));
        });
    return app.exec();
}
