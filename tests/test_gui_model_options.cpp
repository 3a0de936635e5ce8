// AleRax's --origination OPTIMIZE and --speciation-gamma-categories in the workbench, driven like a
// user: chosen with the mouse in the Open data dialog, the Run panel's modes the model allows (the
// others greyed, saying why), θ with origination weights and the shape α built, optimised, undone and
// kept in sessions; the likelihood checked against `gpurec eval` and the CPU backend; the weights on
// the species tree; the panels that show one set of tables per family showing one category.
#include "cli_run.hpp"
#include "data/origination.hpp"
#include "gui_test_support.hpp"
#include "input/open_input_dialog.hpp"
#include "model/gamma_categories.hpp"
#include "optim/rate_files.hpp"
#include "panels/backtrack_panel.hpp"
#include "panels/cell_terms_panel.hpp"
#include "panels/families_model.hpp"
#include "panels/search_panel.hpp"
#include "panels/solver_knobs_panel.hpp"
#include "panels/waves_panel.hpp"
#include "plots/live_plots.hpp"
#include "session/recent_inputs.hpp"
#include "session/session_file.hpp"
#include "views/species_quantities.hpp"
#include "worker/table_requests.hpp"

#include <QAbstractItemView>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QGroupBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QStandardItemModel>
#include <QStyleOptionSpinBox>
#include <QTabBar>
#include <QUndoStack>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

using namespace gpurec;
using namespace gpurec::ui;
using test::chooseWithMouse;
using test::kGuiTimeoutMs;
using test::loadInto;
using test::named;
using test::q;
using test::teachingRequest;

namespace {

// Clicks the up arrow of `spin` once.
[[nodiscard]] bool clickUp(QSpinBox* spin) {
    if (!test::click(spin)) return false; // focus, as a user's first click gives it
    QStyleOptionSpinBox option;
    option.initFrom(spin);
    option.rect = spin->rect();
    option.frame = true;
    option.subControls = QStyle::SC_SpinBoxUp;
    const QRect up = spin->style()->subControlRect(QStyle::CC_SpinBox, &option, QStyle::SC_SpinBoxUp, spin);
    const int before = spin->value();
    QTest::mouseClick(spin, Qt::LeftButton, {}, up.center());
    return spin->value() == before + 1;
}

bool enabledEntry(QComboBox* combo, const QVariant& data) {
    return static_cast<QStandardItemModel*>(combo->model())->item(combo->findData(data))->isEnabled();
}

QString entryTip(QComboBox* combo, const QVariant& data) {
    return static_cast<QStandardItemModel*>(combo->model())->item(combo->findData(data))->toolTip();
}

// The teaching sample as the Open data dialog gives it after `origination` and 3 categories were
// chosen with the mouse (Open clicked).
[[nodiscard]] bool chooseInTheDialog(const QString& origination, int categories, LoadRequest& request) {
    OpenInputDialog dialog;
    dialog.setRequest(teachingRequest());
    if (!test::showActive(dialog)) return false;
    auto* originate = named<QComboBox>(&dialog, "Families originate");
    auto* spin = named<QSpinBox>(&dialog, "Speciation categories");
    if (!originate || !spin || spin->value() != 1 || spin->text() != "1 (off)") return false;
    if (origination != "UNIFORM" && !chooseWithMouse(originate, QVariant(origination))) return false;
    while (spin->value() < categories)
        if (!clickUp(spin)) return false;
    if (!test::click(dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Open))) return false;
    if (dialog.result() != QDialog::Accepted) return false;
    request = dialog.request();
    return true;
}

bool openAndWait(WorkbenchWindow& w, const QString& path) {
    QSignalSpy opened(&w, &WorkbenchWindow::sessionOpened);
    w.openSession(path);
    return opened.wait(kGuiTimeoutMs) && opened.at(0).at(0).toBool();
}

nlohmann::json readJson(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    const QByteArray bytes = file.readAll();
    return nlohmann::json::parse(bytes.begin(), bytes.end());
}

void writeJson(const QString& path, const nlohmann::json& j) {
    std::ofstream(path.toStdString()) << j.dump(1) << "\n";
}

// The total NLL (bits) of `gpurec eval` on `request`'s data at θ (its rates and origination weights
// through model_parameters.txt, α through --gamma-alpha); NaN when it fails.
double cliNllBits(const LoadRequest& request, const Dataset& data, const RateParameters& theta,
                  const std::string& folder) {
    const std::string rates = folder + "/model_parameters.txt";
    writeModelParameters(rates, data.species, theta);
    const test::CliRun r =
        test::runGpurec({"eval", "-s", q(request.paths.speciesTree), "-f", q(request.paths.familiesFile),
                         "--origination", q(toString(data.origination)), "--speciation-gamma-categories",
                         QString::number(data.speciationCategories), "--rates-file", q(rates),
                         "--gamma-alpha", QString::number(theta.speciationShape(), 'g', 17), "--device",
                         "cpu", "-p", q(folder + "/eval"), "--overwrite"});
    if (r.exitCode != 0) {
        qWarning("gpurec eval: %s", qPrintable(r.err));
        return NAN;
    }
    return readJson(q(folder + "/eval/result.json")).at("total").at("nll_bits").get<double>();
}

// The "optimization" record of `gpurec optimize`'s result.json on `request`'s data with the
// parametrisation `parametrization` from the default starting rates and α, at most `iterations`
// iterations (null when it fails).
nlohmann::json cliOptimization(const LoadRequest& request, const Dataset& data,
                               const QString& parametrization, int iterations, const std::string& folder) {
    const test::CliRun r = test::runGpurec(
        {"optimize", "-s", q(request.paths.speciesTree), "-f", q(request.paths.familiesFile), "--origination",
         q(toString(data.origination)), "--speciation-gamma-categories",
         QString::number(data.speciationCategories), "--model-parametrization", parametrization, "--max-iter",
         QString::number(iterations), "--device", "cpu", "-p", q(folder + "/optimize"), "--overwrite"});
    if (r.exitCode != 0) {
        qWarning("gpurec optimize: %s", qPrintable(r.err));
        return nullptr;
    }
    return readJson(q(folder + "/optimize/result.json")).at("optimization");
}

} // namespace

class GuiModelOptions : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        test::isolateSettings("gui_model_options");
        RecentInputs().clear();
    }

    // OPTIMIZE and 3 categories picked in the Open data dialog: the Run panel offers the modes with
    // origination weights only, θ holds the weights and α, an optimisation fits them (the engine's
    // likelihood is `gpurec eval`'s and the CPU backend's at the fitted θ), the plots and the
    // Current line show α, Undo puts the starting θ back bit for bit, the tree colours by the fitted
    // weights, and the session and recent inputs keep it all.
    void optimizeAndCategoriesFromTheDialogAreFittedAndKept() {
        LoadRequest request;
        QVERIFY(chooseInTheDialog("OPTIMIZE", 3, request));
        QVERIFY(request.options.origination == Origination::Optimize);
        QCOMPARE(request.options.speciationCategories, 3);

        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, request));
        const Dataset& d = *w.dataset();
        QVERIFY(d.origination == Origination::Optimize);
        QCOMPARE(d.speciationCategories, 3);

        // Global rates cannot hold the weights: the mode moved to ORIGINATION-PER-SPECIES, said so.
        RunPanel* run = w.runPanel();
        auto* mode = run->findChild<QComboBox*>("rateMode");
        QCOMPARE(run->parametrization(), std::string("ORIGINATION-PER-SPECIES"));
        QVERIFY(w.logView()->toPlainText().contains(
            "Rate mode global, origination weights per species instead of global (one D, L, T)"));
        QVERIFY(!enabledEntry(mode, "GLOBAL") && !enabledEntry(mode, "PER-FAMILY"));
        QVERIFY(enabledEntry(mode, "PER-SPECIES") && enabledEntry(mode, "ORIGINATION-PER-SPECIES"));
        QVERIFY(entryTip(mode, "GLOBAL").contains("not with OPTIMIZE origination"));
        auto* note = run->findChild<QLabel*>("rateModeNote");
        QVERIFY(note->isVisible());
        // Both greyed modes under their one reason.
        QVERIFY2(note->text().contains("and per family — not with OPTIMIZE origination") &&
                     note->text().count("not with OPTIMIZE origination") == 1,
                 qPrintable(note->text()));
        RateParameters theta = w.session().parameters();
        QVERIFY(theta.mode() == RateMode::Global && theta.optimizesOrigination());
        QCOMPARE(theta.speciationShape(), 1.0);
        // Global rates: the families table shows them.
        FamiliesModel* families = w.familiesPanel()->model();
        QVERIFY(families->data(families->index(0, FamiliesModel::RateD)).isValid());

        // Per species with the mouse: per-node rates and weights, α last.
        QVERIFY(chooseWithMouse(mode, QVariant("PER-SPECIES")));
        QTRY_VERIFY(w.session().parameters().mode() == RateMode::Specieswise);
        theta = w.session().parameters();
        QVERIFY(theta.optimizesOrigination());
        QCOMPARE(theta.shapeEntry(), static_cast<int>(theta.theta().size()) - 1);
        for (double o : theta.originWeights()) // AleRax's start: equal weights 1/N, the UNIFORM likelihood
            QVERIFY(std::abs(o * d.species.size() - 1) < 1e-15);
        QCOMPARE(w.undoStack()->undoText(), QString("Rate mode specieswise with origination weights"));
        QVERIFY(!families->data(families->index(0, FamiliesModel::RateD)).isValid()); // rates on the tree
        const RateParameters start = theta;

        run->maxIterations()->setValue(6);
        QSignalSpy iterations(&w.session(), &EngineSession::iterationFinished);
        QSignalSpy finished(&w.session(), &EngineSession::runFinished);
        QVERIFY(test::click(run->optimiseButton()));
        QVERIFY(test::waitForCount(finished, 1));
        const auto outcome = finished.at(0).at(0).value<RunOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        theta = w.session().parameters();
        QCOMPARE(theta.theta(), outcome.theta.theta());
        QVERIFY(theta.optimizesOrigination() && theta.shapeEntry() >= 0);
        const std::vector<double> weights = theta.originWeights();
        QVERIFY(*std::max_element(weights.begin(), weights.end()) >
                1.01 * *std::min_element(weights.begin(), weights.end())); // fitted, no longer equal
        QVERIFY(theta.speciationShape() != 1.0);                           // α moved too
        const double startNll = iterations.at(0).at(0).value<IterationSample>().nllBits;
        QVERIFY(outcome.nllBits < startNll);

        // The engine's likelihood at the fitted θ is the CPU backend's and `gpurec eval`'s.
        const double cpu = selectBackend("cpu", w.dataset(), {})
                               .backend->evaluate(theta, SolverOptions{}, false)
                               .totalNllBits;
        QVERIFY2(std::abs(outcome.nllBits - cpu) < 1e-9 * cpu,
                 qPrintable(QString("%1 vs %2").arg(outcome.nllBits, 0, 'g', 17).arg(cpu, 0, 'g', 17)));
        const double cli = cliNllBits(request, d, theta, test::temporaryFolder("gui_model_options_eval"));
        QVERIFY2(std::abs(outcome.nllBits - cli) < 1e-9 * cli,
                 qPrintable(
                     QString("%1 vs gpurec eval %2").arg(outcome.nllBits, 0, 'g', 17).arg(cli, 0, 'g', 17)));
        // And `gpurec optimize` with the same parametrisation, start and iteration cap fits the same.
        const nlohmann::json fit = cliOptimization(request, d, "PER-SPECIES", 6,
                                                   test::temporaryFolder("gui_model_options_optimize"));
        QVERIFY(fit.is_object());
        const double fitted = fit.at("best_nll_bits").get<double>();
        QVERIFY2(std::abs(outcome.nllBits - fitted) < 1e-9 * fitted,
                 qPrintable(QString("%1 vs gpurec optimize %2")
                                .arg(outcome.nllBits, 0, 'g', 17)
                                .arg(fitted, 0, 'g', 17)));
        const double fittedAlpha = fit.at("speciation_gamma").at("alpha").get<double>();
        QVERIFY2(std::abs(theta.speciationShape() - fittedAlpha) < 1e-9 * fittedAlpha,
                 qPrintable(QString("α %1 vs gpurec optimize %2")
                                .arg(theta.speciationShape(), 0, 'g', 17)
                                .arg(fittedAlpha, 0, 'g', 17)));
        const std::vector<double> normalised = normalisedOriginWeights(theta);
        for (int e = 0; e < d.species.size(); ++e) {
            const double o = fit.at("origination").at(d.species.names()[e]).get<double>();
            QVERIFY2(std::abs(normalised[e] - o) < 1e-9 * o, d.species.names()[e].c_str());
        }

        // α in the rates plot (one point per iteration), the Current line and the categories' weights.
        QCustomPlot* rates = w.livePlots()->ratesPlot();
        QCPGraph* alpha = rates->graph(3);
        QVERIFY(alpha->visible() && alpha->name() == "shape α");
        QCOMPARE(alpha->dataCount(), iterations.count());
        QCOMPARE(w.livePlots()->trueValue(alpha, alpha->dataCount() - 1),
                 std::exp2(iterations.last().at(0).value<IterationSample>().theta.back()));
        const QString current = run->findChild<QLabel*>("currentRates")->text();
        QVERIFY2(current.contains(QString("α %1").arg(theta.speciationShape(), 0, 'g', 4)),
                 qPrintable(current));
        QVERIFY2(current.contains("origination weights"), qPrintable(current));
        QVERIFY(run->findChild<QGroupBox*>("speciationCategoriesBox")->isVisible());
        const QString scalers = run->findChild<QLabel*>("categoryRates")->text();
        for (double s : gammaCategoryRates(theta.speciationShape(), 3))
            QVERIFY2(scalers.contains(QString::number(s, 'g', 4)), qPrintable(scalers));

        // The species tree coloured by the fitted weights, normalised as model_parameters.txt has them.
        SpeciesTreePanel* tree = w.speciesTreePanel();
        auto* colourBy = tree->findChild<QComboBox*>("colourBy");
        QSignalSpy shown(tree, &SpeciesTreePanel::valuesShown);
        QVERIFY(chooseWithMouse(colourBy, QVariant(int(SpeciesQuantity::OriginationWeight))));
        QVERIFY(test::waitForShown(shown, SpeciesQuantity::OriginationWeight));
        const SpeciesValues& values = tree->shownValues();
        QVERIFY(values.logarithmic);
        double total = 0;
        for (int e = 0; e < d.species.size(); ++e) {
            QCOMPARE(values.values[e], weights[e] / std::accumulate(weights.begin(), weights.end(), 0.0));
            total += values.values[e];
        }
        QVERIFY(std::abs(total - 1) < 1e-12);
        const int heaviest =
            static_cast<int>(std::max_element(weights.begin(), weights.end()) - weights.begin());
        QVERIFY(tree->view()->branchColour(heaviest) !=
                tree->view()->branchColour(
                    static_cast<int>(std::min_element(weights.begin(), weights.end()) - weights.begin())));
        QVERIFY(tree->view()->toolTipOf(heaviest).contains("origination weight O_e"));

        // Undo the optimisation: the starting θ, bit for bit; Redo: the fitted one.
        QVERIFY(w.undoAction()->isEnabled());
        w.undoAction()->trigger();
        QCOMPARE(w.session().parameters().theta(), start.theta());
        w.redoAction()->trigger();
        QCOMPARE(w.session().parameters().theta(), theta.theta());

        // The session keeps the options, the weights and α by name; it comes back into a new window.
        const QString path = QString::fromStdString(test::temporaryFolder("gui_model_options")) + "/s.json";
        QVERIFY(w.saveSession(path));
        const nlohmann::json saved = readJson(path);
        QCOMPARE(saved.at("version").get<int>(), kSessionFormatVersion);
        QCOMPARE(saved.at("input").at("origination").get<std::string>(), std::string("OPTIMIZE"));
        QCOMPARE(saved.at("input").at("speciation_gamma_categories").get<int>(), 3);
        const auto extras = saved.at("optimization").at("extra_parameters").get<std::vector<std::string>>();
        QCOMPARE(extras, theta.extraEntryNames(d.species.names()));
        QCOMPARE(extras.back(), std::string("alpha"));
        QVERIFY(RecentInputs().entries().front().options.origination == Origination::Optimize);
        QCOMPARE(RecentInputs().entries().front().options.speciationCategories, 3);

        WorkbenchWindow again;
        QVERIFY(test::showActive(again));
        QVERIFY(openAndWait(again, path));
        QVERIFY(again.dataset()->origination == Origination::Optimize);
        QCOMPARE(again.dataset()->speciationCategories, 3);
        QCOMPARE(again.runPanel()->parametrization(), std::string("PER-SPECIES"));
        QCOMPARE(again.session().parameters().theta(), theta.theta());
        QVERIFY(again.session().parameters().optimizesOrigination());
        OpenInputDialog dialog;
        dialog.setRequest(again.lastRequest());
        QCOMPARE(named<QComboBox>(&dialog, "Families originate")->currentData().toString(),
                 QString("OPTIMIZE"));
        QCOMPARE(named<QSpinBox>(&dialog, "Speciation categories")->value(), 3);
    }

    // Categories without OPTIMIZE: per family (AleRax refuses it) and the weights' own mode greyed;
    // the starting α and Reset; the panels that show one table set per family show the chosen
    // category and say which, with the values of that category's tables; the story is not told.
    void categoriesAreShownOneAtATimeAndSaySo() {
        LoadRequest request;
        QVERIFY(chooseInTheDialog("UNIFORM", 3, request));
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        RunPanel* run = w.runPanel();
        auto* mode = run->findChild<QComboBox*>("rateMode");
        QVERIFY(!enabledEntry(mode, "ORIGINATION-PER-SPECIES")); // before any data: UNIFORM's
        mode->setCurrentIndex(mode->findData("PER-FAMILY"));
        QVERIFY(loadInto(w, request));
        const Dataset& d = *w.dataset();
        QCOMPARE(run->parametrization(), std::string("GLOBAL"));
        QVERIFY(w.logView()->toPlainText().contains(
            "Rate mode global (one D, L, T) instead of per family, which is not with speciation categories"));
        QVERIFY(!enabledEntry(mode, "PER-FAMILY") && !enabledEntry(mode, "ORIGINATION-PER-SPECIES"));
        QVERIFY(entryTip(mode, "ORIGINATION-PER-SPECIES").contains("needs OPTIMIZE origination"));
        auto* colourBy = w.speciesTreePanel()->findChild<QComboBox*>("colourBy");
        QVERIFY(!enabledEntry(colourBy, int(SpeciesQuantity::OriginationWeight)));
        QVERIFY(entryTip(colourBy, int(SpeciesQuantity::OriginationWeight)).contains("Only with OPTIMIZE"));

        // A starting α typed, then Reset: θ's shape is it.
        auto* startAlpha = named<QLineEdit>(run, "Starting α");
        QVERIFY(startAlpha && startAlpha->isVisible());
        test::typeInto(startAlpha, "2.5");
        QVERIFY(test::click(run->resetButton()));
        QTRY_COMPARE(w.session().parameters().speciationShape(), 2.5);
        const RateParameters theta = w.session().parameters();
        QCOMPARE(theta.shapeEntry(), 3);

        // The Cell equation of the root clade at the root, in category 1, then 2 picked with the mouse.
        const int family = 0;
        w.familiesPanel()->selectFamily(family);
        const CladeSet& clades = d.families[family].clades;
        const int clade = clades.rootClade();
        CladeDagView* dag = w.wavesPanel()->dag();
        w.viewTabs()->setCurrentWidget(w.wavesPanel());
        dag->fitAll();
        dag->centerOn(dag->cladePosition(clade));
        QTest::mouseClick(dag->viewport(), Qt::LeftButton, {}, dag->mapFromScene(dag->cladePosition(clade)));
        QCOMPARE(dag->selectedClade(), clade);
        SpeciesTreeView* view = w.speciesTreePanel()->view();
        const int node = d.species.root();
        view->centerOn(view->nodePosition(node));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(view->nodePosition(node)));
        const std::vector<FamilyTables> tables =
            test::sessionLikeBackend(w.dataset())->familyTables(theta, w.knobsPanel()->options(), {family});
        QCOMPARE(tables.front().categories.size(), std::size_t(3));
        const std::vector<double> s = gammaCategoryRates(2.5, 3);
        CellTermsPanel* cells = w.cellTermsPanel();
        for (int category : {0, 1}) {
            if (category == 1) {
                QVERIFY(chooseWithMouse(named<QComboBox>(run, "Category shown"), 1));
                QCOMPARE(run->shownCategory(), 1);
            }
            QVERIFY(QTest::qWaitFor(
                [&] {
                    return cells->shown() && cells->shown()->cell && cells->shown()->species == node &&
                           cells->shown()->clade == clade && cells->shown()->category == category;
                },
                kGuiTimeoutMs));
            const FamilyTables& t = tables.front().categories[category];
            const CladeCellDecomposition& cell = *cells->shown()->cell;
            QVERIFY(std::abs(cell.sumScaled() * std::ldexp(1.0, cell.scale - t.clades.scale[clade]) /
                                 t.clades.piRow(clade)[node] -
                             1) < 1e-12);
            QVERIFY(std::abs(cells->shown()->extinction->sum() / t.E[node] - 1) < 1e-12);
            const QString note = QString("in speciation category %1 of 3 (s %2)")
                                     .arg(category + 1)
                                     .arg(s[category], 0, 'g', 3);
            QVERIFY2(cells->caption().contains(note), qPrintable(cells->caption()));
        }
        // The categories differ: category 2's cell is not category 1's.
        QVERIFY(tables.front().categories[0].E[node] != tables.front().categories[1].E[node]);

        // The species tree's E: category 2's, its title saying so.
        SpeciesTreePanel* tree = w.speciesTreePanel();
        QSignalSpy shown(tree, &SpeciesTreePanel::valuesShown);
        tree->setQuantity(SpeciesQuantity::Extinction);
        QVERIFY(test::waitForShown(shown, SpeciesQuantity::Extinction));
        QVERIFY(test::sameNumbers(tree->shownValues().values, tables.front().categories[1].E));
        QVERIFY(tree->shownValues().title.contains("in speciation category 2 of 3"));

        // The clade heat map: category 2's log10 Π.
        WavesPanel* waves = w.wavesPanel();
        QSignalSpy heat(waves, &WavesPanel::heatMapShown);
        waves->setColouring(WavesPanel::CladeColouring::Log10Probability);
        QVERIFY(test::waitForCount(heat, 1));
        const auto backend = test::sessionLikeBackend(w.dataset());
        const CladeStatistics expected = computeCladeStatistics(categoryTables(tablesOf(*backend), 1), d,
                                                                theta, w.knobsPanel()->options(), family);
        QVERIFY(test::sameNumbers(waves->cladeStatistics()->log10Probability, expected.log10Probability));
        QVERIFY(waves->findChild<QLabel*>("heatMapNote")->text().contains("in speciation category 2 of 3"));

        // Sampling draws from the mixture; the story of a sample is not retold, and the tab says why.
        QVERIFY(test::sampleInView(w, {family}, 3));
        ReconciliationPanel* recon = w.reconciliationPanel();
        QVERIFY(test::click(recon->findChild<QRadioButton*>("oneSampleMode")));
        BacktrackPanel* story = recon->backtrack();
        QVERIFY(!story->findChild<QPushButton*>("tellStory")->isEnabled());
        QVERIFY2(story->caption().contains("With 3 speciation categories"), qPrintable(story->caption()));
    }

    // OPTIMIZE alone: the clade posteriors (computed with equal origination weights) are not offered,
    // and the species-tree search says why it does not run.
    void optimizeGreysWhatCannotFollowIt() {
        LoadRequest request;
        QVERIFY(chooseInTheDialog("OPTIMIZE", 1, request));
        QCOMPARE(request.options.speciationCategories, 1);
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, request));
        QVERIFY(!w.runPanel()->findChild<QGroupBox*>("speciationCategoriesBox")->isVisible());
        QVERIFY(w.session().parameters().shapeEntry() < 0);
        QComboBox* colouring = w.wavesPanel()->colouringBox();
        QVERIFY(!static_cast<QStandardItemModel*>(colouring->model())
                     ->item(int(WavesPanel::CladeColouring::Posterior))
                     ->isEnabled());
        QPushButton* start = w.searchPanel()->startButton();
        QVERIFY(!start->isEnabled());
        QVERIFY(w.searchPanel()->findChild<QLabel*>("searchStatus")->text().contains("OPTIMIZE"));

        // Global rates with the weights, evaluated, kept by a session as they are (no mode moved).
        QCOMPARE(w.runPanel()->parametrization(), std::string("ORIGINATION-PER-SPECIES"));
        QSignalSpy finished(&w.session(), &EngineSession::runFinished);
        QVERIFY(test::click(w.runPanel()->evaluateButton()));
        QVERIFY(test::waitForCount(finished, 1));
        const auto outcome = finished.at(0).at(0).value<RunOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        const RateParameters theta = w.session().parameters();
        const double cli = cliNllBits(request, *w.dataset(), theta,
                                      test::temporaryFolder("gui_model_options_optimize_only"));
        QVERIFY2(std::abs(outcome.nllBits - cli) < 1e-9 * cli,
                 qPrintable(
                     QString("%1 vs gpurec eval %2").arg(outcome.nllBits, 0, 'g', 17).arg(cli, 0, 'g', 17)));
        const QString path =
            QString::fromStdString(test::temporaryFolder("gui_model_options_optimize_only")) + "/s.json";
        QVERIFY(w.saveSession(path));
        WorkbenchWindow again;
        QVERIFY(test::showActive(again));
        QVERIFY(openAndWait(again, path));
        QCOMPARE(again.runPanel()->parametrization(), std::string("ORIGINATION-PER-SPECIES"));
        QVERIFY(!again.logView()->toPlainText().contains("instead of"));
        QCOMPARE(again.session().parameters().theta(), theta.theta());
        QVERIFY(again.session().parameters().optimizesOrigination());
    }

    // A session written before these options (format 4: no categories, no starting α, no extra
    // parameters) still opens: one category, its origination and its rates, the weights' mode gone.
    void aFormatFourSessionStillOpens() {
        const QString dir = QString::fromStdString(test::temporaryFolder("gui_model_options_old"));
        RateParameters saved;
        {
            WorkbenchWindow w;
            QVERIFY(test::showActive(w));
            QVERIFY(loadInto(w, teachingRequest()));
            w.runPanel()->findChild<QComboBox*>("rateMode")->setCurrentIndex(1); // per species
            QVERIFY(test::click(w.runPanel()->evaluateButton()));
            QTRY_VERIFY(!w.session().running());
            saved = w.session().parameters();
            QVERIFY(w.saveSession(dir + "/new.json"));
        }
        nlohmann::json old = readJson(dir + "/new.json");
        old["version"] = 4;
        old["input"].erase("speciation_gamma_categories");
        old["run"].erase("starting_alpha");
        old["optimization"].erase("extra_parameters");
        writeJson(dir + "/old.json", old);

        // Into a window left with OPTIMIZE and categories: the session's own model replaces them.
        LoadRequest request;
        QVERIFY(chooseInTheDialog("OPTIMIZE", 2, request));
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, request));
        QVERIFY(openAndWait(w, dir + "/old.json"));
        QVERIFY(w.dataset()->origination == Origination::Uniform);
        QCOMPARE(w.dataset()->speciationCategories, 1);
        QCOMPARE(w.runPanel()->parametrization(), std::string("PER-SPECIES"));
        QCOMPARE(w.session().parameters().theta(), saved.theta());
        QVERIFY(!w.session().parameters().optimizesOrigination());
        QVERIFY(!w.runPanel()->findChild<QGroupBox*>("speciationCategoriesBox")->isVisible());
    }

    // The controls these options added have names for screen readers and UI automation.
    void newControlsHaveAccessibleNames() {
        OpenInputDialog dialog;
        QVERIFY(dialog.findChild<QSpinBox*>("speciationCategories")->accessibleName() ==
                "Speciation categories");
        RunPanel run;
        for (const char* name : {"startAlpha", "shownCategory", "categoryRates", "rateModeNote"}) {
            QWidget* widget = run.findChild<QWidget*>(name);
            QVERIFY2(widget, name);
            QVERIFY2(!widget->accessibleName().isEmpty(), name);
        }
    }
};

QTEST_MAIN(GuiModelOptions)
#include "test_gui_model_options.moc"
