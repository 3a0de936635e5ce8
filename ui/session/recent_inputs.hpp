#pragma once
// The most recently loaded inputs, kept in QSettings so the File menu can reopen them.
#include "input/input_loader.hpp"

#include <QString>
#include <QVariantMap>
#include <vector>

namespace gpurec::ui {

QVariantMap toVariant(const LoadRequest& request);
LoadRequest loadRequestFrom(const QVariantMap& map);
// "species.nwk + families.txt (in /data/primates)"
QString describe(const LoadRequest& request);

class RecentInputs {
  public:
    static constexpr int kMaxEntries = 8;
    std::vector<LoadRequest> entries() const;
    // Moves `request` to the front (an identical earlier entry is removed).
    void add(const LoadRequest& request);
    void clear();
};

} // namespace gpurec::ui
