// The columns of the liquid's particle swarms, one table per swarm, and a swarm's particles as
// plain arrays.
//
// A swarm's table says what one particle carries: the name of each column (the DMSwarm field,
// and the dataset or point array that shows it), how many values it has, how the swarm stores
// them, and where else it goes. Everything that carries particles iterates the table: the swarm
// registers its fields from it and copies them to and from records (physics/particle_swarm.hpp),
// a checkpoint writes and reads a row of every column per particle (io/checkpoint.hpp), frames
// write the columns marked for frames (io/frame_writer.hpp), and Catalyst gets the columns marked
// in situ (io/catalyst_adaptor.hpp). A new column is one row of its swarm's table.
//
// Two swarms: the marker particles of the particle level set (physics/particle_level_set.hpp)
// and the spray and foam (physics/spray.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace sf {

/// How a swarm stores a column: reals, or 64-bit integers (ids).
enum class ColumnType { Real, Int64 };

/// One column of a particle swarm.
struct SwarmColumn {
  const char* name;         // the DMSwarm field; the frame's dataset; Catalyst's point array
  int width;                // values per particle: 3 (x, y, z) for a position or velocity, else 1
  ColumnType type;
  const char* units;        // the units attribute of the column's frame dataset
  const char* description;  // what it holds, as its frame dataset's description says
  bool in_frames;           // written to every frame as /particles/<name>
  bool in_situ;             // a point array of Catalyst's "particles" channel
};

/// A swarm's columns in order: the order of a checkpoint's rows. The first column is the
/// particle's position (3 reals): what migration, frames and Catalyst place the particle by.
struct SwarmTable {
  template <size_t N>
  constexpr SwarmTable(const char* name, const SwarmColumn (&columns)[N])
      : name(name), columns(columns), count(N) {}

  const char* name;  // the DMSwarm's name, and its dataset in a checkpoint (/<name>)
  const SwarmColumn* columns;
  size_t count;

  const SwarmColumn* begin() const { return columns; }
  const SwarmColumn* end() const { return columns + count; }
  const SwarmColumn& operator[](size_t c) const { return columns[c]; }
  /// The values of one particle over every column: a checkpoint row's length.
  constexpr size_t row_width() const {
    size_t width = 0;
    for (size_t c = 0; c < count; ++c) width += static_cast<size_t>(columns[c].width);
    return width;
  }
};

// The marker particles (Enright et al. 2002). A checkpoint's /particles rows: x y z sign radius id.
inline constexpr SwarmColumn kParticleColumns[] = {
    {"position", 3, ColumnType::Real, "length",
     "marker particles of the particle level set (Enright et al. 2002)", true, false},
    {"sign", 1, ColumnType::Real, "none", "the side a particle tracks: -1 liquid, +1 air", true,
     false},
    {"radius", 1, ColumnType::Real, "length", "the particle's radius, between 0.1 and 0.5 cells",
     true, false},
    {"id", 1, ColumnType::Int64, "none", "the particle's number, below 2^53", false, false},
};
inline constexpr SwarmTable kParticleTable{"particles", kParticleColumns};
/// The marker particles' columns by name, for the code that reads or sets one of them.
enum ParticleColumn : size_t { kParticlePosition, kParticleSign, kParticleRadius, kParticleId };

// The spray and foam (Foster & Metaxas 1996). A checkpoint's /spray rows: position (3),
// velocity (3), radius, life, kind, id.
inline constexpr SwarmColumn kSprayColumns[] = {
    {"position", 3, ColumnType::Real, "length", "spray and foam particles", false, true},
    {"velocity", 3, ColumnType::Real, "length / time", "a spray particle's velocity; 0 for foam",
     false, true},
    {"radius", 1, ColumnType::Real, "length", "the particle's radius", false, true},
    {"life", 1, ColumnType::Real, "time", "a foam particle's remaining life; 0 for spray", false,
     false},
    {"kind", 1, ColumnType::Real, "none", "0 spray, 1 foam", false, true},
    {"id", 1, ColumnType::Int64, "none", "the particle's number, below 2^53", false, false},
};
inline constexpr SwarmTable kSprayTable{"spray", kSprayColumns};
/// The spray's columns by name.
enum SprayColumn : size_t {
  kSprayPosition,
  kSprayVelocity,
  kSprayRadius,
  kSprayLife,
  kSprayKind,
  kSprayId
};

// The names above index the rows they name.
static_assert(std::string_view(kParticleColumns[kParticlePosition].name) == "position" &&
              std::string_view(kParticleColumns[kParticleSign].name) == "sign" &&
              std::string_view(kParticleColumns[kParticleRadius].name) == "radius" &&
              std::string_view(kParticleColumns[kParticleId].name) == "id" &&
              kParticleTable.count == kParticleId + 1);
static_assert(std::string_view(kSprayColumns[kSprayPosition].name) == "position" &&
              std::string_view(kSprayColumns[kSprayVelocity].name) == "velocity" &&
              std::string_view(kSprayColumns[kSprayRadius].name) == "radius" &&
              std::string_view(kSprayColumns[kSprayLife].name) == "life" &&
              std::string_view(kSprayColumns[kSprayKind].name) == "kind" &&
              std::string_view(kSprayColumns[kSprayId].name) == "id" &&
              kSprayTable.count == kSprayId + 1);

/// This rank's particles of one swarm as plain arrays, a column per row of the swarm's table
/// (width values per particle, particle after particle). Every value is a double: an Int64
/// column's values are below 2^53 in both swarms, so they are exact, as in a checkpoint.
class SwarmRecords {
public:
  explicit SwarmRecords(const SwarmTable& table) : table_(&table), columns_(table.count) {}

  const SwarmTable& table() const { return *table_; }
  size_t size() const {
    return columns_[0].size() / static_cast<size_t>(table_->columns[0].width);
  }
  void resize(size_t n) {
    for (size_t c = 0; c < columns_.size(); ++c)
      columns_[c].resize(n * static_cast<size_t>(table_->columns[c].width));
  }
  std::vector<double>& operator[](size_t column) { return columns_[column]; }
  const std::vector<double>& operator[](size_t column) const { return columns_[column]; }

  /// The particles as rows of table().row_width() values, the columns in the table's order:
  /// a checkpoint's dataset.
  std::vector<double> rows() const {
    const size_t n = size(), width = table_->row_width();
    std::vector<double> out(n * width);
    size_t first = 0;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const size_t w = static_cast<size_t>(table_->columns[c].width);
      for (size_t p = 0; p < n; ++p)
        for (size_t v = 0; v < w; ++v) out[p * width + first + v] = columns_[c][p * w + v];
      first += w;
    }
    return out;
  }
  /// The particles of `n` rows as rows() lays them out.
  void set_rows(const std::vector<double>& rows, size_t n) {
    resize(n);
    const size_t width = table_->row_width();
    size_t first = 0;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const size_t w = static_cast<size_t>(table_->columns[c].width);
      for (size_t p = 0; p < n; ++p)
        for (size_t v = 0; v < w; ++v) columns_[c][p * w + v] = rows[p * width + first + v];
      first += w;
    }
  }

private:
  const SwarmTable* table_;
  std::vector<std::vector<double>> columns_;
};

/// This rank's marker particles (kParticleTable's columns).
struct ParticleRecords : SwarmRecords {
  ParticleRecords() : SwarmRecords(kParticleTable) {}
};

/// This rank's spray and foam particles (kSprayTable's columns).
struct SprayRecords : SwarmRecords {
  SprayRecords() : SwarmRecords(kSprayTable) {}
};

}  // namespace sf
