#pragma once
// "Open data": a species tree plus an AleRax families file and/or gene-tree files (with their
// mapping files), and the loading options.
#include "input/input_discovery.hpp"
#include "input/input_loader.hpp"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace gpurec::ui {

class OpenInputDialog : public QDialog {
    Q_OBJECT
  public:
    explicit OpenInputDialog(QWidget* parent = nullptr);
    void setRequest(const LoadRequest& request);
    void addDiscovered(const DiscoveredInput& input);
    LoadRequest request() const;

  private:
    void addGeneTrees(const QStringList& trees, const QStringList& mappings);
    void updateOk();
    // Leaves only the model options that go together enabled (AleRax's refusals, EventModel::validate,
    // requirePrunable), each greyed one saying why in its tooltip.
    void updateModelOptions();

    QLineEdit *species_, *families_, *fractionMissing_, *highways_;
    QListWidget* geneTrees_;
    QComboBox *rooting_, *constraint_, *origination_, *recModel_;
    QCheckBox *noDup_, *noDl_, *noTl_, *pairwise_, *prune_;
    QSpinBox *minCovered_, *categories_;
    QDialogButtonBox* buttons_;
};

} // namespace gpurec::ui
