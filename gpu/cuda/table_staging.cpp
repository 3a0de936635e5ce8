#include "table_staging.hpp"

#include <algorithm>

namespace gpurec::gpu {

std::vector<StagingChunk> stagingChunks(const std::vector<std::pair<int, int>>& shapes,
                                        std::size_t capacity) {
    std::vector<StagingChunk> chunks;
    std::size_t used = 0;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        StagedFamily f;
        f.index = static_cast<int>(i);
        f.clades = shapes[i].first;
        f.width = shapes[i].second;
        const std::size_t doubles = 2 * f.rowDoubles();
        if (capacity == 0 || doubles > capacity) {
            chunks.push_back(StagingChunk{{f}, true});
            continue;
        }
        if (chunks.empty() || chunks.back().direct || used + doubles > capacity) {
            chunks.emplace_back();
            used = 0;
        }
        f.offset = used;
        used += doubles;
        chunks.back().families.push_back(f);
    }
    return chunks;
}

void unstage(const double* staged, const StagingChunk& chunk, const std::vector<CladeTables*>& out) {
    const int count = static_cast<int>(chunk.families.size());
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < count; ++k) {
        const StagedFamily& f = chunk.families[k];
        CladeTables& c = *out[f.index];
        c.clades = f.clades;
        c.species = f.width;
        const double* pi = staged + f.offset;
        const std::size_t rows = f.rowDoubles();
        c.pi.assign(pi, pi + rows);
        c.pibar.assign(pi + rows, pi + 2 * rows);
    }
}

} // namespace gpurec::gpu
