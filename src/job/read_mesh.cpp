// Obstacles from triangle meshes: rank 0 reads each mesh file with Open Asset Import (STL, OBJ,
// PLY, OFF and the other formats it knows) and broadcasts the triangles, so a thousand ranks do
// not each open the file; every rank then builds the same TriangleMesh, scaled and placed as the
// job says, and every rank reaches the same verdict on a file that cannot be read or a surface
// that is not closed, naming the job's key and line.
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <cstdint>
#include <memory>
#include <new>

#include "parser.hpp"

namespace sf::job_detail {

namespace {

/// Reads `path` into flat vertex and triangle arrays; "" or why not.
std::string read_triangles(const std::string& path, std::vector<double>* vertices,
                           std::vector<std::int64_t>* triangles) {
  Assimp::Importer importer;
  // Polygons become triangles; the vertices that STL repeats for every triangle become one, so
  // that edges are shared (the closed-surface check and the inside test need it); the scene's
  // node transforms are applied. JoinIdenticalVertices merges only vertices whose normals,
  // texture coordinates and colours match too, and STL gives each vertex its facet's normal:
  // those are removed first, or no edge between two faces at an angle would be shared.
  importer.SetPropertyInteger(AI_CONFIG_PP_RVC_FLAGS,
                              aiComponent_NORMALS | aiComponent_TANGENTS_AND_BITANGENTS |
                                  aiComponent_TEXCOORDS | aiComponent_COLORS);
  const aiScene* scene = importer.ReadFile(
      path, aiProcess_RemoveComponent | aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                aiProcess_PreTransformVertices);
  if (!scene) return importer.GetErrorString();
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh& mesh = *scene->mMeshes[m];
    const std::int64_t first = static_cast<std::int64_t>(vertices->size() / 3);
    for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
      vertices->push_back(mesh.mVertices[v].x);
      vertices->push_back(mesh.mVertices[v].y);
      vertices->push_back(mesh.mVertices[v].z);
    }
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      // Points and lines enclose nothing; they are left out.
      if (face.mNumIndices != 3) continue;
      for (int corner = 0; corner < 3; ++corner) triangles->push_back(first + face.mIndices[corner]);
    }
  }
  if (triangles->empty()) return "it holds no triangles";
  return "";
}

/// Sends rank 0's `values` to every rank; false on every rank if any rank could not make room
/// for them (a rank that threw alone would leave the others waiting in the broadcast).
template <typename T>
bool broadcast(MPI_Comm comm, std::vector<T>* values, MPI_Datatype type) {
  long long count = static_cast<long long>(values->size());
  MPI_Bcast(&count, 1, MPI_LONG_LONG, 0, comm);
  int room = 1, everywhere = 0;
  try {
    values->resize(static_cast<size_t>(count));
  } catch (const std::bad_alloc&) {
    room = 0;
  }
  MPI_Allreduce(&room, &everywhere, 1, MPI_INT, MPI_MIN, comm);
  if (!everywhere) return false;
  // In pieces: MPI counts are ints.
  constexpr long long kPiece = 1LL << 28;
  for (long long start = 0; start < count; start += kPiece)
    MPI_Bcast(values->data() + start, static_cast<int>(std::min(kPiece, count - start)), type, 0,
              comm);
  return true;
}

}  // namespace

void load_meshes(MPI_Comm comm, const JobParser& parser, JobConfig& job) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  for (ObstacleConfig& obstacle : job.obstacles) {
    if (obstacle.region.shape != Region::Shape::Mesh) continue;
    const ObstacleConfig::MeshFile& file = obstacle.mesh_file;
    std::vector<double> vertices;
    std::vector<std::int64_t> triangles;
    std::string error;
    if (rank == 0) {
      try {
        error = read_triangles(file.path, &vertices, &triangles);
      } catch (const std::bad_alloc&) {
        error = "it does not fit in memory";
      }
    }
    int error_length = static_cast<int>(error.size());
    MPI_Bcast(&error_length, 1, MPI_INT, 0, comm);
    if (error_length > 0) {
      error.resize(static_cast<size_t>(error_length));
      MPI_Bcast(error.data(), error_length, MPI_CHAR, 0, comm);
      parser.fail(file.line, file.key, "cannot read mesh '" + file.path + "': " + error);
    }
    // Rank 0's count, the same on every rank, for the message.
    long long count = static_cast<long long>(triangles.size() / 3);
    MPI_Bcast(&count, 1, MPI_LONG_LONG, 0, comm);
    const std::string too_large = "mesh '" + file.path + "' (" + std::to_string(count) +
                                  " triangles) does not fit in the memory of every rank";
    if (!broadcast(comm, &vertices, MPI_DOUBLE) || !broadcast(comm, &triangles, MPI_INT64_T))
      parser.fail(file.line, file.key, too_large);
    // Built on every rank; the ranks agree that it fitted before any of them goes on.
    std::shared_ptr<const TriangleMesh> mesh;
    std::string open;
    int built = 1, everywhere = 0;
    try {
      // Scaled about the file's origin, then moved so that its bounding box is centred on
      // `center` if the job gives one.
      for (double& x : vertices) x *= file.scale;
      if (file.centred) {
        const TriangleMesh scaled(vertices, {});
        for (size_t v = 0; v < vertices.size(); ++v) {
          const size_t a = v % 3;
          vertices[v] += file.center[a] - 0.5 * (scaled.lower()[a] + scaled.upper()[a]);
        }
      }
      mesh = std::make_shared<const TriangleMesh>(std::move(vertices), std::move(triangles));
      open = mesh->closed_problem();
    } catch (const std::bad_alloc&) {
      built = 0;
    }
    MPI_Allreduce(&built, &everywhere, 1, MPI_INT, MPI_MIN, comm);
    if (!everywhere) parser.fail(file.line, file.key, too_large);
    if (!open.empty()) {
      parser.fail(file.line, file.key,
                  "mesh '" + file.path + "' is not a closed surface: " + open +
                      "; an obstacle needs an inside");
    }
    obstacle.region.mesh = std::move(mesh);
  }
}

}  // namespace sf::job_detail
