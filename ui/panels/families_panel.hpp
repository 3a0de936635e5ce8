#pragma once
// The sortable, filterable families table; selecting a family drives the other views. Besides the
// name filter, a branch filter (a click on a species branch) keeps the sampled families with
// events of a chosen kind on that branch, shown as a chip that clears it. The name, log L and
// rate columns come first and fit the panel (long names elided, full in the tooltip).
#include "panels/families_model.hpp"

#include <QWidget>

class QComboBox;
class QLineEdit;
class QLabel;
class QTableView;
class QToolButton;

namespace gpurec::ui {

class FamiliesPanel : public QWidget {
    Q_OBJECT
  public:
    explicit FamiliesPanel(QWidget* parent = nullptr);
    void setDataset(std::shared_ptr<const Dataset> data);
    FamiliesModel* model() const { return model_; }
    void selectFamily(int family);             // dataset index; -1 clears
    int selectedFamily() const;                // the first selected, -1 when none
    std::vector<int> selectedFamilies() const; // dataset indices, in table order
    QTableView* table() const { return table_; }
    int visibleRows() const;
    // The width that shows the name, log L and D, L, T columns without scrolling sideways.
    int widthForMainColumns() const;
    // Keeps the families with events of the chosen kind on species node `node`; −1 clears.
    void setBranchFilter(int node);
    int branchFilter() const;
    void setBranchEvent(FamiliesModel::BranchEvent kind);
    QComboBox* branchEventBox() const { return branchEvent_; }
    QToolButton* branchChip() const { return chip_; }

  signals:
    void familySelected(int family); // dataset index, -1 when none
    void familiesSelected(const std::vector<int>& families);

  private:
    void updateCount();
    void updateChip();
    void fitColumns();

    class Filter;
    FamiliesModel* model_;
    Filter* proxy_;
    QTableView* table_;
    QLineEdit* filter_;
    QComboBox* branchEvent_;
    QToolButton* chip_;
    QLabel* count_;
    std::shared_ptr<const Dataset> data_;
};

} // namespace gpurec::ui
