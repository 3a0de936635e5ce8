// Transfer highways, --pairwise-transfers and --prune-species-tree in the workbench, driven like a
// user: chosen with the mouse and keyboard in the Open data dialog (each greyed, with the engine's
// own refusal, where it does not go with the rest), the species-tree search refused, the rates
// fitted by Optimise (the likelihood the CPU backend's at the fitted θ), and the Transfer rates tab
// showing exactly the fitted rates.
#include "engine/backend_factory.hpp"
#include "gui_test_support.hpp"
#include "highways/highway_rates.hpp"
#include "highways/pairwise_transfers.hpp"
#include "input/open_input_dialog.hpp"
#include "panels/search_panel.hpp"
#include "panels/transfer_pairs_model.hpp"
#include "panels/transfer_rates_panel.hpp"
#include "views/colour_legend.hpp"
#include "views/transfer_heat_map.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QStyleOptionButton>
#include <QTabBar>
#include <QTableView>
#include <QToolButton>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <fstream>

using namespace gpurec;
using namespace gpurec::ui;
using test::kGuiTimeoutMs;
using test::named;

namespace {

// Opens `combo`'s list with a click and clicks the entry holding `data`.
[[nodiscard]] bool pickEntry(QComboBox* combo, const QVariant& data) {
    if (!test::click(combo)) return false;
    QAbstractItemView* list = combo->view();
    if (!QTest::qWaitFor([&] { return list->isVisible(); }, kGuiTimeoutMs)) return false;
    const QModelIndex item = list->model()->index(combo->findData(data), 0);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(item).center());
    return QTest::qWaitFor([&] { return !list->isVisible(); }, kGuiTimeoutMs) && combo->currentData() == data;
}

// The Open data dialog on the teaching sample, shown and active, with its three new controls.
struct Dialog {
    OpenInputDialog dialog;
    QLineEdit* highways = nullptr;
    QCheckBox *pairwise = nullptr, *prune = nullptr;
    [[nodiscard]] bool open() {
        dialog.setRequest(test::teachingRequest());
        if (!test::showActive(dialog)) return false;
        highways = named<QLineEdit>(&dialog, "Transfer highways file");
        pairwise = named<QCheckBox>(&dialog, "Pairwise transfers");
        prune = named<QCheckBox>(&dialog, "Prune the species tree");
        return highways && pairwise && prune && highways->isEnabled() && pairwise->isEnabled() &&
               prune->isEnabled() && !pairwise->isChecked() && !prune->isChecked();
    }
    [[nodiscard]] bool accept(LoadRequest& request) {
        if (!test::click(dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Open))) return false;
        request = dialog.request();
        return dialog.result() == QDialog::Accepted;
    }
};

// Clicks into `edit`, replaces its text by typing and leaves it with Tab (Return would press the
// dialog's default button).
[[nodiscard]] bool typeText(QLineEdit* edit, const QString& text) {
    if (!test::click(edit)) return false;
    edit->selectAll();
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Tab);
    return edit->text() == text && !edit->hasFocus();
}

// Clicks the view tab showing `page` as a user does: first the tab bar's right arrow while the tab
// is scrolled out of sight (several tabs overflow a narrow bar).
[[nodiscard]] bool clickTab(WorkbenchWindow& w, QWidget* page, const QString& text) {
    QTabWidget* tabs = w.viewTabs();
    QTabBar* bar = tabs->tabBar();
    const int index = tabs->indexOf(page);
    if (index < 0 || tabs->tabText(index) != text || !tabs->isTabVisible(index)) {
        qWarning("no visible tab '%s' (index %d)", qPrintable(text), index);
        return false;
    }
    auto* right = bar->findChild<QToolButton*>("ScrollRightButton");
    auto hidden = [&] { // under the scroll arrows, or scrolled out of the bar
        const QPoint centre = bar->tabRect(index).center();
        for (QToolButton* arrow : bar->findChildren<QToolButton*>())
            if (arrow->isVisible() && arrow->geometry().contains(centre)) return true;
        return bar->tabAt(centre) != index;
    };
    for (int tries = 0; hidden(); ++tries)
        if (tries == 20 || !right || !test::click(right)) {
            qWarning("tab %d out of sight of its %d-pixel bar", index, bar->width());
            return false;
        }
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(index).center());
    if (tabs->currentWidget() == page) return true;

    qWarning("clicked tab %d at %d of a %d-pixel bar: tab %d shown", index, bar->tabRect(index).center().x(),
             bar->width(), tabs->currentIndex());
    return false;
}

// Clicks a check box's indicator (a click beside its text, in the empty rest of a wide row, does
// not toggle it).
[[nodiscard]] bool clickBox(QCheckBox* box) {
    const bool before = box->isChecked();
    if (!box->isEnabled() || !box->isVisible() || QApplication::activeWindow() != box->window()) {
        qWarning("cannot click %s: enabled %d, visible %d", qPrintable(box->accessibleName()),
                 box->isEnabled(), box->isVisible());
        return false;
    }
    QStyleOptionButton option;
    option.initFrom(box);
    const QRect indicator = box->style()->subElementRect(QStyle::SE_CheckBoxIndicator, &option, box);
    QTest::mouseClick(box, Qt::LeftButton, {}, indicator.center());
    return box->isChecked() != before;
}

// Optimises at most `iterations` iterations with the Run panel's button; the outcome.
[[nodiscard]] bool optimise(WorkbenchWindow& w, int iterations, RunOutcome& outcome) {
    RunPanel* run = w.runPanel();
    run->maxIterations()->setValue(iterations);
    QSignalSpy finished(&w.session(), &EngineSession::runFinished);
    if (!test::click(run->optimiseButton()) || !test::waitForCount(finished, 1)) return false;
    outcome = finished.at(0).at(0).value<RunOutcome>();
    if (!outcome.error.isEmpty()) qWarning("run failed: %s", qPrintable(outcome.error));
    return outcome.error.isEmpty();
}

// The CPU reference backend's NLL (bits) of the window's data at θ.
double cpuNllBits(const WorkbenchWindow& w, const RateParameters& theta) {
    return selectBackend("cpu", w.dataset(), {})
        .backend->evaluate(theta, SolverOptions{}, false)
        .totalNllBits;
}

bool sameNll(double a, double b) {
    if (std::abs(a - b) <= 1e-9 * std::abs(b)) return true;
    qWarning("NLL %.17g, CPU %.17g", a, b);
    return false;
}

bool greyedSaying(QWidget* widget, const QString& reason) {
    if (!widget->isEnabled() && widget->toolTip().contains(reason)) return true;
    qWarning("%s: enabled %d, tooltip '%s'", qPrintable(widget->accessibleName()), widget->isEnabled(),
             qPrintable(widget->toolTip()));
    return false;
}

} // namespace

class GuiPairwiseMatrix : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { test::isolateSettings("gui_pairwise_matrix"); }

    // Each option greys what the engine refuses with it, saying the engine's words: pruning and
    // the highways exclude each other, UndatedDL takes highways and pairs, RELDATED and a
    // fraction-missing file take pruning.
    void refusedCombinationsAreGreyedWithTheEngineReason() {
        Dialog d;
        QVERIFY(d.open());
        QVERIFY(clickBox(d.prune));
        QVERIFY(d.prune->isChecked());
        const QString noHighways = "--prune-species-tree is not supported with transfer highways";
        QVERIFY(greyedSaying(d.pairwise, noHighways));
        QVERIFY(greyedSaying(d.highways, noHighways));
        QVERIFY(clickBox(d.prune)); // off again: both back
        QVERIFY(d.pairwise->isEnabled() && d.highways->isEnabled());

        QVERIFY(clickBox(d.pairwise));
        QVERIFY(greyedSaying(d.prune, noHighways));
        auto* events = named<QComboBox>(&d.dialog, "Model events");
        QVERIFY(pickEntry(events, "UndatedDL"));
        QVERIFY(!d.pairwise->isChecked()); // no transfers: no pairs
        QVERIFY(
            greyedSaying(d.pairwise, "--pairwise-transfers can only be used with --rec-model UndatedDTL"));
        QVERIFY(greyedSaying(d.highways, "--highways-file can only be used with --rec-model UndatedDTL"));
        QVERIFY(d.prune->isEnabled());
        QVERIFY(pickEntry(events, "UndatedDTL"));
        QVERIFY(d.pairwise->isEnabled() && d.highways->isEnabled());

        QVERIFY(pickEntry(named<QComboBox>(&d.dialog, "Transfers go"), "RELDATED"));
        QVERIFY(greyedSaying(d.prune,
                             "--prune-species-tree is not supported with --transfer-constraint RELDATED"));
        QVERIFY(pickEntry(named<QComboBox>(&d.dialog, "Transfers go"), "PARENTS"));
        QVERIFY(d.prune->isEnabled());
        auto* missing = named<QLineEdit>(&d.dialog, "Fraction-missing file");
        QVERIFY(typeText(missing, "missing.txt"));
        QVERIFY(greyedSaying(d.prune, "--fraction-missing-file cannot be used with --prune-species-tree"));
    }

    // Pairwise transfers chosen with a click: the search is refused, Optimise fits every pair (the likelihood
    // is the CPU backend's at the fitted θ), and the Transfer rates tab shows exactly those rates: in the
    // table sorted by rate, in the heat map's cells and tooltips, on the legend's scale, and live while the
    // fit runs.
    void pairwiseTransfersAreFittedAndShownInTheMatrix() {
        LoadRequest request;
        {
            Dialog d;
            QVERIFY(d.open());
            QVERIFY(clickBox(d.pairwise));
            QVERIFY(d.accept(request));
        }
        QVERIFY(request.options.events.pairwiseTransfers && !request.options.pruneSpeciesTree);

        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(test::loadInto(w, request));
        const Dataset& data = *w.dataset();
        QVERIFY(data.events.pairwiseTransfers);
        const std::vector<Highway> pairs = everyTransferPair(data.species, data.transferConstraint);
        QCOMPARE(data.highways, pairs);
        QVERIFY(!w.searchPanel()->startButton()->isEnabled());
        QVERIFY(w.searchPanel()
                    ->findChild<QLabel*>("searchStatus")
                    ->text()
                    .contains("No species-tree search with --pairwise-transfers"));

        TransferRatesPanel* panel = w.transferRatesPanel();
        QVERIFY(clickTab(w, panel, "Transfer rates"));
        TransferPairsModel* model = panel->model();
        QCOMPARE(model->rowCount(), static_cast<int>(pairs.size()));
        QSignalSpy changed(model, &QAbstractItemModel::dataChanged);
        QSignalSpy iterations(&w.session(), &EngineSession::iterationFinished);
        const std::vector<double> start = highwayRates(w.session().parameters());
        QCOMPARE(model->rates(), start);
        // The uniform model's split: every donor's pairs start at T / |R(e)|, so equal per donor.
        QCOMPARE(start[0], start[1]);

        RunOutcome outcome;
        QVERIFY(optimise(w, 4, outcome));
        QVERIFY(changed.count() >= iterations.count()); // followed the fit live
        QVERIFY(iterations.count() >= 2);
        const RateParameters& theta = w.session().parameters();
        QCOMPARE(theta.highwayCount(), static_cast<int>(pairs.size()));
        const std::vector<double> fitted = highwayRates(theta);
        QVERIFY(fitted != start);
        QVERIFY(sameNll(outcome.nllBits, cpuNllBits(w, theta)));
        QCOMPARE(model->rates(), fitted); // the engine's rates, bit for bit

        // The table: the strongest pair first, its cell in the heat map.
        QTableView* table = panel->table();
        QVERIFY(table->isVisible());
        const int strongest =
            static_cast<int>(std::max_element(fitted.begin(), fitted.end()) - fitted.begin());
        const QModelIndex first = panel->sortedPairs()->mapToSource(panel->sortedPairs()->index(0, 0));
        QCOMPARE(first.row(), strongest);
        const QString donor = QString::fromStdString(data.species.name(pairs[strongest].source));
        const QString recipient = QString::fromStdString(data.species.name(pairs[strongest].destination));
        QCOMPARE(table->model()->index(0, TransferPairsModel::Donor).data().toString(), donor);
        QCOMPARE(table->model()->index(0, TransferPairsModel::Recipient).data().toString(), recipient);
        QCOMPARE(table->model()->index(0, TransferPairsModel::Rate).data(Qt::UserRole).toDouble(),
                 fitted[strongest]);
        const QString full = QString::number(fitted[strongest], 'g', 17);
        QVERIFY(panel->summary()->text().contains(QString("%1 → %2: ρ = %3").arg(donor, recipient, full)));

        TransferHeatMap* map = panel->heatMap();
        QVERIFY(map->isVisible());
        const QRect cell = map->cellRect(strongest);
        QCOMPARE(map->pairAt(cell.center()), strongest);
        QHelpEvent hover(QEvent::ToolTip, cell.center(), map->mapToGlobal(cell.center()));
        QApplication::sendEvent(map, &hover);
        QVERIFY(QTest::qWaitFor([&] { return QToolTip::isVisible(); }, kGuiTimeoutMs));
        QCOMPARE(QToolTip::text(), QString("%1 → %2: ρ = %3").arg(donor, recipient, full));
        const QColor drawn = map->grab().toImage().pixelColor(cell.center());
        QCOMPARE(drawn, map->scale().colour(fitted[strongest]));
        QCOMPARE(map->scale().high(), fitted[strongest]);
        QCOMPARE(map->scale().low(), *std::min_element(fitted.begin(), fitted.end()));
        QCOMPARE(panel->legend()->scale().high(), fitted[strongest]);
        QVERIFY(panel->legend()->accessibleDescription().contains(ColourLegend::endText(fitted[strongest])));

        // A click on another cell selects its pair in the table; the filter keeps the donor's pairs.
        const int other = strongest == 0 ? 1 : 0;
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(other).center());
        QCOMPARE(panel->sortedPairs()->mapToSource(table->currentIndex()).row(), other);
        auto* filter = named<QLineEdit>(panel, "Filter transfer pairs");
        test::typeInto(filter, donor);
        for (int r = 0; r < table->model()->rowCount(); ++r) {
            const QModelIndex source = panel->sortedPairs()->mapToSource(table->model()->index(r, 0));
            const Highway& h = pairs[source.row()];
            QVERIFY(
                QString::fromStdString(data.species.name(h.source)).contains(donor, Qt::CaseInsensitive) ||
                QString::fromStdString(data.species.name(h.destination))
                    .contains(donor, Qt::CaseInsensitive));
        }

        // Zoom: in until the names are drawn, out until they give way, and Fit back.
        auto* in = named<QToolButton>(panel, "Zoom into the transfer rate matrix");
        auto* out = named<QToolButton>(panel, "Zoom out of the transfer rate matrix");
        auto* zoomNote = named<QLabel>(panel, "Transfer rate matrix zoom");
        while (!map->namesShown())
            QVERIFY(test::click(in));
        QVERIFY(!zoomNote->text().contains("zoom in for the names"));
        QVERIFY(map->width() > map->columnCount() * map->cellSize()); // room for the row names
        // Scrolled to the far corner, the names stay at the view's edges, over the cells there.
        auto* scroll = panel->findChild<QScrollArea*>("transferHeatMapScroll");
        while (in->isEnabled())
            QVERIFY(test::click(in));
        for (QScrollBar* bar : {scroll->horizontalScrollBar(), scroll->verticalScrollBar()})
            bar->setValue(bar->maximum());
        const QRect shown = map->visibleRegion().boundingRect();
        QVERIFY(shown.left() > 0 && shown.top() > 0);
        const QPoint besideLastRow(shown.left() + 1, shown.bottom() - 1);
        QCOMPARE(map->pairAt(besideLastRow), -1);
        QCOMPARE(map->grab().toImage().pixelColor(besideLastRow), map->palette().color(QPalette::Base));
        // A pair selected in the table is scrolled into view clear of them.
        const int firstShown = panel->sortedPairs()->mapToSource(table->model()->index(0, 0)).row();
        table->setCurrentIndex({});
        table->setCurrentIndex(table->model()->index(0, 0));
        const QPoint selected = map->cellRect(firstShown).center();
        QVERIFY(map->visibleRegion().contains(selected));
        QCOMPARE(map->pairAt(selected), firstShown);
        while (map->namesShown())
            QVERIFY(test::click(out));
        QVERIFY(zoomNote->text().contains("zoom in for the names"));
        QVERIFY(test::click(named<QToolButton>(panel, "Fit the transfer rate matrix")));
        const QSize view = map->parentWidget()->size(); // the scroll area's viewport
        QVERIFY(map->width() <= view.width() && map->height() <= view.height());
        // The teaching sample's 23 nodes: the fit keeps their names (in a font at least
        // kSmallestNames of the view's) and fills the view's width or height.
        QVERIFY(map->namesShown());
        QVERIFY(!zoomNote->text().contains("zoom in for the names"));
        QVERIFY(map->nameFont().pointSizeF() >=
                TransferHeatMap::kSmallestNames * map->font().pointSizeF() - 1e-9);
        QVERIFY2(map->width() >= 0.9 * view.width() || map->height() >= 0.9 * view.height(),
                 qPrintable(QString("matrix %1×%2 in a %3×%4 view")
                                .arg(map->width())
                                .arg(map->height())
                                .arg(view.width())
                                .arg(view.height())));

        // In a smaller window (as on a screen scaled by 1.5) the names no longer fit beside cells
        // a line tall: Fit keeps those of every second to fourth row and column, each with a tick
        // at its row's middle, and elides the long ones at their start.
        w.resize(w.width() * 2 / 3, w.height() * 2 / 3);
        QVERIFY(
            QTest::qWaitFor([&] { return map->parentWidget()->height() < view.height(); }, kGuiTimeoutMs));
        QVERIFY(test::click(named<QToolButton>(panel, "Fit the transfer rate matrix")));
        const int stride = map->nameStride();
        QVERIFY2(stride >= 2 && stride <= TransferHeatMap::kMaxNameStride,
                 qPrintable(QString("stride %1, cell %2 px").arg(stride).arg(map->cellSize())));
        QVERIFY(zoomNote->text().contains(QString("one name in %1").arg(stride)));
        const QFontMetrics names(map->nameFont());
        QVERIFY(stride * map->cellSize() >= 0.85 * names.height()); // labels do not overlap
        const QSize margins = map->margins();
        QVERIFY(margins.width() < names.horizontalAdvance("Node_Streptococcus_Clostridium_0"));
        const QImage matrixImage = map->grab().toImage();
        auto tickAt = [&](int row) { // text colour at the row's middle, in the gap before its cells
            const int middle = static_cast<int>(margins.height() + (row + 0.5) * map->cellSize());
            for (int y = middle - 1; y <= middle + 1; ++y)
                if (matrixImage.pixelColor(margins.width() - 2, y) != map->palette().color(QPalette::Base))
                    return true;
            return false;
        };
        QVERIFY(tickAt(0) && tickAt(stride));
        QVERIFY(!tickAt(1));
        QVERIFY(map->width() <= map->parentWidget()->width() &&
                map->height() <= map->parentWidget()->height());
    }

    // A highways file typed into the dialog: its highways are fitted, the matrix shows only their
    // donors and recipients, and pruning is greyed while it is given.
    void highwaysFromTheDialogAreFittedAndShown() {
        const std::string path = test::temporaryFolder("gui_pairwise_matrix_highways") + "/highways.txt";
        std::ofstream(path) << "src, dest, proba\nEscherichia, Bacillus, 0.05\nVibrio, Streptomyces, 0.02\n";
        LoadRequest request;
        {
            Dialog d;
            QVERIFY(d.open());
            QVERIFY(typeText(d.highways, QString::fromStdString(path)));
            QVERIFY(greyedSaying(d.prune, "--prune-species-tree is not supported with transfer highways"));
            QVERIFY(d.accept(request));
        }
        QCOMPARE(request.paths.highwaysFile, path);
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(test::loadInto(w, request));
        QCOMPARE(w.dataset()->highways.size(), std::size_t(2));
        QVERIFY(w.searchPanel()->findChild<QLabel*>("searchStatus")->text().contains("Searches")); // allowed
        RunOutcome outcome;
        QVERIFY(optimise(w, 3, outcome));
        TransferRatesPanel* panel = w.transferRatesPanel();
        QVERIFY(clickTab(w, panel, "Transfer rates"));
        const std::vector<double> fitted = highwayRates(w.session().parameters());
        QCOMPARE(panel->model()->rates(), fitted);
        QVERIFY(fitted != (std::vector<double>{0.05, 0.02}));
        QVERIFY(sameNll(outcome.nllBits, cpuNllBits(w, w.session().parameters())));
        QCOMPARE(panel->heatMap()->rowCount(), 2);    // Escherichia, Vibrio
        QCOMPARE(panel->heatMap()->columnCount(), 2); // Bacillus, Streptomyces
        QVERIFY(panel->summary()->text().contains("2 transfer highways"));
    }

    // Pruning chosen with a click: each family on its pruned tree (the CPU backend's likelihood),
    // the search refused, and no Transfer rates tab (there are no pairs to show).
    void pruningFromTheDialogRunsAndRefusesTheSearch() {
        LoadRequest request;
        {
            Dialog d;
            QVERIFY(d.open());
            QVERIFY(clickBox(d.prune));
            QVERIFY(d.accept(request));
        }
        QVERIFY(request.options.pruneSpeciesTree);
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(test::loadInto(w, request));
        QVERIFY(w.dataset()->pruneSpeciesTree);
        QVERIFY(w.searchPanel()
                    ->findChild<QLabel*>("searchStatus")
                    ->text()
                    .contains("No species-tree search with --prune-species-tree"));
        QSignalSpy finished(&w.session(), &EngineSession::runFinished);
        QVERIFY(test::click(w.runPanel()->evaluateButton()));
        QVERIFY(test::waitForCount(finished, 1));
        const auto outcome = finished.at(0).at(0).value<RunOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QVERIFY(sameNll(outcome.nllBits, cpuNllBits(w, w.session().parameters())));
        // Pruned: not the full tree's likelihood.
        LoadRequest full = request;
        full.options.pruneSpeciesTree = false;
        const LoadedInput unpruned = loadInput(full.paths, full.constraint, full.options);
        const double fullNll = selectBackend("cpu", unpruned.dataset, {})
                                   .backend->evaluate(w.session().parameters(), SolverOptions{}, false)
                                   .totalNllBits;
        QVERIFY(std::abs(fullNll - outcome.nllBits) > 1e-6 * fullNll);
        // No pairs to show: no Transfer rates tab.
        QVERIFY(!w.viewTabs()->isTabVisible(w.viewTabs()->indexOf(w.transferRatesPanel())));
    }
};

QTEST_MAIN(GuiPairwiseMatrix)
#include "test_gui_pairwise_matrix.moc"
