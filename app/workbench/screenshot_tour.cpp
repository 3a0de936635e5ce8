#include "screenshot_tour.hpp"

#include "event_wait.hpp"
#include "input/open_input_dialog.hpp"
#include "io/families_file.hpp"
#include "panels/families_panel.hpp"
#include "panels/guided_tour_panel.hpp"
#include "panels/reconciliation_panel.hpp"
#include "panels/run_panel.hpp"
#include "panels/search_panel.hpp"
#include "panels/solver_knobs_panel.hpp"
#include "panels/species_tree_panel.hpp"
#include "panels/step_controls.hpp"
#include "panels/transfer_rates_panel.hpp"
#include "panels/waves_panel.hpp"
#include "plots/live_plots.hpp"
#include "views/transfer_heat_map.hpp"

#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextStream>
#include <cstdio>

namespace gpurec::ui {

namespace {
// A copy of the loaded families file plus three broken families, to show the Problems panel.
QString writeBrokenInput(const QString& folder, const LoadRequest& loaded, const SpeciesTree& species) {
    QString families = folder + "/families.txt";
    QFile out(families);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Text)) return {};
    QTextStream text(&out);
    text << "[FAMILIES]\n";
    int kept = 0;
    for (const FamilyInput& f : readFamiliesFile(loaded.paths.familiesFile)) {
        if (kept++ == 4) break;
        text << "- " << QString::fromStdString(f.name) << "\n"
             << "gene_tree = " << QFileInfo(QString::fromStdString(f.geneTreePath)).absoluteFilePath()
             << "\n";
        if (!f.mappingPath.empty())
            text << "mapping = " << QFileInfo(QString::fromStdString(f.mappingPath)).absoluteFilePath()
                 << "\n";
    }
    text << "- truncated_tree\ngene_tree = truncated.nwk\n"
         << "- missing_file\ngene_tree = not_there.nwk\n"
         << "- unknown_species\ngene_tree = unknown.nwk\n"
         << "- two_species\ngene_tree = two_species.nwk\n";
    auto write = [&](const QString& name, const char* content) {
        QFile f(folder + "/" + name);
        if (f.open(QIODevice::WriteOnly | QIODevice::Text)) f.write(content);
    };
    write("truncated.nwk", "((A_1,B_1),(C_1,\n  D_1);\n");
    write("unknown.nwk", "((mouse_1,rat_1),(yeti_1,dragon_1));\n");
    const QString a = QString::fromStdString(species.name(species.leaves()[0]));
    const QString b = QString::fromStdString(species.name(species.leaves()[1]));
    write("two_species.nwk", QString("((%1_1,%2_1),%1_2);\n").arg(a, b).toUtf8().constData());
    return families;
}
} // namespace

int runScreenshotTour(WorkbenchWindow& w, const QString& folder) {
    auto fail = [](const char* what) {
        std::fprintf(stderr, "screenshot tour: %s\n", what);
        return 1;
    };
    QDir().mkpath(folder);
    // The size a user gets on this screen (the window fits the screen it opens on), not a fixed one.
    w.fitToScreen();
    settle();
    // `height`/`width` > 0 keep only the top/left of the widget (panels in tall or wide docks).
    auto save = [&](QWidget* widget, const QString& name, int height = 0, int width = 0) {
        settle();
        QRect area(0, 0, width > 0 ? std::min(width, widget->width()) : widget->width(),
                   height > 0 ? std::min(height, widget->height()) : widget->height());
        if (!widget->grab(area).save(folder + "/" + name))
            std::fprintf(stderr, "could not write %s\n", qPrintable(name));
    };
    if (!w.dataset() && !waitFor(&w, &WorkbenchWindow::inputLoaded)) return fail("the data did not load");
    if (!w.dataset()) return fail("the data given on the command line could not be loaded");
    const std::shared_ptr<const Dataset> dataset = w.dataset(); // kept alive across the later reload
    const Dataset& data = *dataset;
    const LoadRequest loaded = w.lastRequest();

    // A simulated sample opens with its guided tour: each stop as the user first sees it.
    ReconciliationPanel* recon = w.reconciliationPanel();
    if (auto* tourDock = w.findChild<QDockWidget*>("tourDock"); tourDock->isVisible()) {
        GuidedTourPanel* guide = w.guidedTour();
        save(&w, "tour-welcome.png");
        for (const TourExample& example : w.tourExamples()) {
            guide->nextButton()->click();
            if (recon->sampling() && !waitFor(recon, &ReconciliationPanel::sampled))
                return fail("the tour's family was not sampled");
            save(&w, QString("tour-%1.png").arg(tourTopicName(example.topic)));
        }
        tourDock->hide();
        recon->setTruthShown(false); // the other pictures show what any dataset gets
    }

    // A family small enough for a readable clade DAG: the one with most genes up to 30.
    int family = 0;
    for (int f = 0; f < static_cast<int>(data.families.size()); ++f) {
        int genes = data.families[f].clades.geneCount();
        if (genes <= 30 && genes > data.families[family].clades.geneCount()) family = f;
    }
    w.familiesPanel()->selectFamily(family);

    w.runPanel()->maxIterations()->setValue(25);
    w.runPanel()->optimiseButton()->click();
    if (!waitFor(&w.session(), &EngineSession::runFinished)) return fail("the optimisation did not finish");

    SpeciesTreePanel* tree = w.speciesTreePanel();
    tree->setQuantity(SpeciesQuantity::Extinction);
    if (!waitFor(tree, &SpeciesTreePanel::valuesShown)) return fail("no colouring");
    tree->view()->fitAll();
    save(&w, "workbench-overview.png");
    save(tree, "species-tree.png");
    if (w.session().parameters().optimizesOrigination()) { // --origination OPTIMIZE: the fitted weights
        tree->setQuantity(SpeciesQuantity::OriginationWeight);
        if (!waitFor(tree, &SpeciesTreePanel::valuesShown))
            return fail("no colouring by origination weights");
        save(tree, "species-tree-origination.png");
    }
    save(w.livePlots(), "live-plots.png");
    if (!data.highways.empty()) { // highways or --pairwise-transfers: the fitted rates, strongest selected
        TransferRatesPanel* rates = w.transferRatesPanel();
        w.viewTabs()->setCurrentWidget(rates);
        settle();
        rates->fitMatrix();
        rates->table()->selectRow(0);
        save(w.centralWidget(), "transfer-rates.png");
        // Zoomed in until the species names are drawn, around the strongest pair (selected anew:
        // the selection scrolls to its cell).
        while (!rates->heatMap()->namesShown() && rates->heatMap()->cellSize() < TransferHeatMap::kMaxCell)
            rates->zoom(1.5);
        rates->table()->setCurrentIndex({});
        rates->table()->selectRow(0);
        save(w.centralWidget(), "transfer-rates-zoomed.png");
    }
    save(w.findChild<QDockWidget*>("familiesDock"), "families-table.png", 320);

    w.viewTabs()->setCurrentWidget(w.wavesPanel());
    const CladeSet& clades = data.families[family].clades;
    int clade = clades.rootClade();
    for (int c = 0; c < clades.cladeCount(); ++c)
        if (std::abs(clades.cladeSize[c] - clades.geneCount() / 3) <
            std::abs(clades.cladeSize[clade] - clades.geneCount() / 3))
            clade = c;
    w.wavesPanel()->dag()->selectClade(clade);
    if (!waitFor(tree, &SpeciesTreePanel::valuesShown)) return fail("no Π colouring");
    tree->view()->fitAll();
    w.wavesPanel()->dag()->fitAll();
    save(w.centralWidget(), "clade-waves.png");

    // Reconciliations: one sample with a transfer, then all samples aggregated, then several families.
    w.viewTabs()->setCurrentWidget(recon);
    auto sampleSelected = [&](const std::vector<int>& families) {
        QTableView* table = w.familiesPanel()->table();
        table->clearSelection();
        for (int f : families)
            table->selectionModel()->select(table->model()->index(f, 0),
                                            QItemSelectionModel::Select | QItemSelectionModel::Rows);
        recon->findChild<QSpinBox*>("sampleCount")->setValue(100);
        recon->findChild<QPushButton*>("sampleButton")->click();
        return waitFor(recon, &ReconciliationPanel::sampled);
    };
    auto showSampleWithTransfer = [&] {
        for (int k = 0; k < static_cast<int>(recon->groups().front().samples.size()); ++k) {
            EventCounts c = countEvents(recon->groups().front().samples[k]);
            if (c.T + c.TL > 0 && c.D > 0) return recon->showSample(k);
        }
    };
    if (!sampleSelected({family})) return fail("sampling failed");
    showSampleWithTransfer();
    recon->view()->fitAll();
    save(w.centralWidget(), "reconciliations.png");
    // The same sample's story, told halfway (with several speciation categories, why it is not told).
    BacktrackPanel* story = recon->backtrack();
    recon->tables()->setCurrentWidget(story);
    if (story->findChild<QPushButton*>("tellStory")->isEnabled()) {
        story->tell();
        if (!waitFor(story->controls(), &StepControls::stepChanged))
            return fail("the sample's story was not told");
        story->controls()->setStep(story->controls()->stepCount() / 2);
    }
    save(recon, "backtracking.png");
    recon->tables()->setCurrentIndex(0);
    recon->setAggregate(true);
    recon->setThreshold(0.1);
    recon->view()->fitAll();
    save(recon, "reconciliations-aggregate.png");
    recon->setAggregate(false);
    if (!sampleSelected({family, (family + 1) % static_cast<int>(data.families.size()),
                         (family + 2) % static_cast<int>(data.families.size())}))
        return fail("sampling several families failed");
    recon->view()->fitAll();
    save(recon, "reconciliations-families.png");
    tree->setQuantity(SpeciesQuantity::SampledTransfersOut);
    if (!waitFor(tree, &SpeciesTreePanel::valuesShown)) return fail("no colouring by sampled transfers");
    tree->view()->fitAll();
    save(tree, "species-tree-transfers.png");

    // The species-tree search from a random tree, so that Compare has moves to show: finished on
    // small data, live on large; pre-screened, so that the plot shows its estimates too. A model
    // the search refuses (pairwise transfers, pruning, OPTIMIZE origination) starts none: the tab
    // with its refusal instead.
    SearchPanel* search = w.searchPanel();
    search->startFromBox()->setCurrentIndex(search->startFromBox()->findData(int(SearchStart::Random)));
    search->prescreenBox()->setValue(30);
    w.startSpeciesSearch();
    if (!search->run().running()) {
        w.viewTabs()->setCurrentWidget(search);
        save(w.centralWidget(), "species-search-refused.png");
    } else {
        waitFor(&search->run(), &SearchRun::finished, 8000);
        settle();
        save(w.centralWidget(), "species-search.png");
        search->treeTabs()->setCurrentIndex(1); // Compare: the start tree and the search's, face to face
        settle();
        save(w.centralWidget(), "species-search-compare.png");
        search->treeTabs()->setCurrentIndex(0);
        if (search->run().running()) {
            search->run().stop();
            if (!waitFor(&search->run(), &SearchRun::finished)) return fail("the search did not stop");
        }
    }
    w.viewTabs()->setCurrentWidget(w.livePlots());

    w.raiseDock("knobsDock");
    auto* eTol = qobject_cast<QLineEdit*>(w.knobsPanel()->editor("e_tol"));
    eTol->setText("0.5");
    emit eTol->editingFinished();
    // A panel down to its last control: the height its width needs (labels wrap in a narrow dock),
    // which may exceed its size hint.
    auto contentHeight = [](QWidget* panel) {
        QLayout* layout = panel->layout();
        return std::max(panel->sizeHint().height(), layout && layout->hasHeightForWidth()
                                                        ? layout->totalHeightForWidth(panel->width())
                                                        : 0);
    };
    save(w.knobsPanel(), "solver-options.png", contentHeight(w.knobsPanel()));
    w.raiseDock("runDock");
    save(w.runPanel(), "run-panel.png", contentHeight(w.runPanel()));

    OpenInputDialog dialog(&w);
    dialog.setRequest(loaded);
    dialog.show();
    save(&dialog, "open-dialog.png");
    dialog.close();

    QTemporaryDir broken;
    // The tour's run is kept in a session, so loading other data (and quitting) asks nothing.
    if (!w.saveSession(broken.filePath("tour.gpurec-session.json"))) return fail("the session was not saved");
    if (loaded.paths.familiesFile.empty()) return 0; // the broken copy is made from a families file
    LoadRequest request = loaded;
    request.paths.familiesFile = writeBrokenInput(broken.path(), loaded, data.species).toStdString();
    request.paths.speciesTree =
        QFileInfo(QString::fromStdString(loaded.paths.speciesTree)).absoluteFilePath().toStdString();
    w.openInput(request);
    if (!waitFor(&w, &WorkbenchWindow::inputLoaded)) return fail("the broken input did not load");
    w.raiseDock("problemsDock");
    auto* problems = w.findChild<QDockWidget*>("problemsDock");
    w.resizeDocks({problems}, {260}, Qt::Vertical);
    save(problems, "problems.png", 0, 1150);
    return 0;
}

} // namespace gpurec::ui
