// Times the species-tree view on a large tree, offscreen: setTree, Fit, collapsing a clade,
// switching layouts, and frames of pan and zoom steps drawn through the viewport's real paint path.
// Not a test: it prints numbers (docs/performance.md, "Workbench views").
//
//     bench_species_tree_view SPECIES.nwk [--steps N] [--bsp] [--pictures FOLDER]
//
// --pictures saves what the view shows after Fit in both layouts and with a clade collapsed, to
// look at the names' readability.
#include "session/save_file.hpp"
#include "views/species_tree_view.hpp"

#include <QApplication>
#include <QElapsedTimer>
#include <QGraphicsScene>
#include <QScrollBar>
#include <cstdio>
#include <random>

using gpurec::SpeciesTree;
using gpurec::ui::ColourScale;
using gpurec::ui::SpeciesTreeView;

namespace {

template <class F> double millis(F&& f) {
    QElapsedTimer timer;
    timer.start();
    f();
    return timer.nsecsElapsed() / 1e6;
}

// Frames of alternating zoom and pan steps; prints the mean and the slowest.
void frames(SpeciesTreeView& view, int steps, const char* what) {
    double total = 0, worst = 0;
    for (int i = 0; i < steps; ++i) {
        const double ms = millis([&] {
            if (i % 4 == 0)
                view.zoomBy(i % 8 == 0 ? 1.25 : 0.8);
            else
                view.verticalScrollBar()->setValue(view.verticalScrollBar()->value() + 37 * (i % 2 ? 1 : -1));
            view.viewport()->grab(); // paints through paintEvent, like a screen update
        });
        total += ms;
        worst = std::max(worst, ms);
    }
    std::printf("%-40s mean %8.2f ms  max %8.2f ms  (%d frames)\n", what, total / steps, worst, steps);
}

// The viewport as PNG into `folder` (nothing when `folder` is empty).
void picture(SpeciesTreeView& view, const QString& folder, const QString& name) {
    if (folder.isEmpty()) return;
    const QImage image = view.viewport()->grab().toImage();
    if (!gpurec::ui::saveFile(folder + "/" + name, [&](QSaveFile& f) { return image.save(&f, "PNG"); }))
        std::fprintf(stderr, "could not write %s\n", qPrintable(folder + "/" + name));
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 2) {
        std::fprintf(stderr, "usage: bench_species_tree_view SPECIES.nwk [--steps N] [--bsp]\n");
        return 2;
    }
    const SpeciesTree tree = SpeciesTree::readFile(args[1].toStdString());
    const int at = args.indexOf("--steps");
    const int steps = at > 0 && at + 1 < args.size() ? args[at + 1].toInt() : 80;
    const int pictures = args.indexOf("--pictures");
    const QString folder = pictures > 0 && pictures + 1 < args.size() ? args[pictures + 1] : QString();

    SpeciesTreeView view;
    if (args.contains("--bsp"))
        view.scene()->setItemIndexMethod(QGraphicsScene::BspTreeIndex); // the view uses none
    view.resize(600, 900);
    view.show();
    std::printf("species tree: %d nodes, %d leaves; view %dx%d; scene index %s\n", tree.size(),
                tree.leafCount(), view.viewport()->width(), view.viewport()->height(),
                args.contains("--bsp") ? "BSP tree" : "none");
    std::printf("%-40s %8.2f ms\n", "setTree (items, layout, fit)", millis([&] { view.setTree(&tree); }));
    std::vector<double> values(tree.size());
    std::mt19937 rng(1);
    for (double& v : values)
        v = std::uniform_real_distribution<double>(0, 1)(rng);
    std::printf("%-40s %8.2f ms\n", "setValues (colours)",
                millis([&] { view.setValues(values, ColourScale::fit(values, false), "random"); }));
    std::printf("%-40s %8.2f ms\n", "fitAll", millis([&] { view.fitAll(); }));
    std::printf("%-40s %8.2f ms\n", "first frame", millis([&] { view.viewport()->grab(); }));
    picture(view, folder, "rectangular-fit.png");
    frames(view, steps, "rectangular: pan/zoom frame");
    view.fitAll();
    const int clade = tree.left(tree.root());
    std::printf("%-40s %8.2f ms\n", "collapse a root child (relayout)",
                millis([&] { view.setCollapsed(clade, true); }));
    picture(view, folder, "rectangular-collapsed.png");
    std::printf("%-40s %8.2f ms\n", "expand it", millis([&] { view.setCollapsed(clade, false); }));
    std::printf("%-40s %8.2f ms\n", "search \"1\" (restyles matches)", millis([&] { view.search("1"); }));
    std::printf("%-40s %8.2f ms\n", "clear search", millis([&] { view.search(""); }));
    std::printf("%-40s %8.2f ms\n", "switch to circular (relayout, fit)",
                millis([&] { view.setCircular(true); }));
    picture(view, folder, "circular-fit.png");
    frames(view, steps, "circular: pan/zoom frame");
    view.selectSpecies(clade);
    std::printf("%-40s %8.2f ms\n", "fit to selection", millis([&] { view.fitToSelection(); }));
    picture(view, folder, "circular-selection.png");
    view.fitAll();
    view.zoomBy(5);
    view.centerOn(view.nodePosition(tree.leaves().at(tree.leafCount() / 3)));
    picture(view, folder, "circular-zoomed.png");
    view.setCollapsed(tree.left(clade), true);
    view.fitAll();
    picture(view, folder, "circular-collapsed.png");
    return 0;
}
