#pragma once
// The species-tree view with its toolbar (colour by, search, zoom, export) and the computation of
// the chosen per-branch quantity off the GUI thread (the last colouring stays while it runs).
#include "panels/eliding_combo_box.hpp"
#include "views/species_quantities.hpp"
#include "views/species_tree_view.hpp"

#include <QFutureWatcher>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QCheckBox;
class QAction;
class QStringListModel;

namespace gpurec::ui {

class SpeciesTreePanel : public QWidget {
    Q_OBJECT
  public:
    explicit SpeciesTreePanel(QWidget* parent = nullptr);

    // `tables`: where E and Π rows of `data`'s families come from (the session's backend).
    void setDataset(std::shared_ptr<const Dataset> data, FamilyTablesSource tables);
    void setParameters(const RateParameters& theta);
    void setSolverOptions(const SolverOptions& options);
    // The speciation category whose E and Π are shown (0-based; worker/table_requests.hpp).
    void setCategory(int category);
    void setSelectedFamily(int family);
    // Colours the tree by the Π row of `clade` of `family`.
    void showClade(int family, int clade);
    void setQuantity(SpeciesQuantity quantity);
    // Mean events per species of the last sampling (nullptr: none, or another species tree).
    void setEventSummary(std::shared_ptr<const ReconciliationSummary> events);
    SpeciesQuantity quantity() const;
    // The Circular check box and the view's layout (sessions restore it).
    void setCircular(bool circular);

    SpeciesTreeView* view() const { return view_; }
    // Zooms onto the selected clade (Ctrl+Shift+F); also in the window's View menu.
    QAction* fitSelectionAction() const { return fitSelection_; }
    // Asks for a file name and saves the drawing as SVG or PNG (by extension).
    void exportTree();
    // Enter in the search field: the node of exactly that name, else the next match (cycling), or a
    // message when nothing matches.
    void searchNext();
    const SpeciesValues& shownValues() const { return shown_; }

  signals:
    void speciesSelected(int node);
    // After a colouring was computed and drawn.
    void valuesShown(gpurec::ui::SpeciesQuantity quantity);

  private:
    void requestValues();
    void showResult(const SpeciesValues& values);
    void updateToolTips();
    void updateSelectionInfo(int node);

    SpeciesTreeView* view_;
    ElidingComboBox* colourBy_;
    QLineEdit* search_;
    QLabel* searchResult_;
    QCheckBox* internalNames_;
    QCheckBox* circular_;
    QAction* fitSelection_;
    QStringListModel* names_;
    QLabel* info_;
    QFutureWatcher<SpeciesValues> watcher_;
    bool pending_ = false;

    std::shared_ptr<const Dataset> data_;
    FamilyTablesSource tables_;
    RateParameters theta_;
    SolverOptions options_;
    int family_ = -1;
    int cladeFamily_ = -1, clade_ = -1;
    int category_ = 0;
    std::shared_ptr<const ReconciliationSummary> events_;
    SpeciesValues shown_;
};

} // namespace gpurec::ui
