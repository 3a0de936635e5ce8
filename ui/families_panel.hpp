#pragma once
// The sortable, filterable families table; selecting a family drives the other views.
#include "families_model.hpp"

#include <QWidget>

class QLineEdit;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

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

  signals:
    void familySelected(int family); // dataset index, -1 when none
    void familiesSelected(const std::vector<int>& families);

  private:
    void updateCount();

    FamiliesModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QLineEdit* filter_;
    QLabel* count_;
};

} // namespace gpurec::ui
