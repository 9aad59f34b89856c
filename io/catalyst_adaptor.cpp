// ParaView Catalyst adaptor; what each rank hands over is described in catalyst_adaptor.hpp.
#include <vtkPython.h>  // first, as Python.h asks: it sets feature macros for system headers

#include "catalyst_adaptor.hpp"

#include <vtkCPDataDescription.h>
#include <vtkCPInputDataDescription.h>
#include <vtkCPProcessor.h>
#include <vtkCPPythonPipeline.h>
#include <vtkCPPythonScriptV2Helper.h>
#include <vtkLogger.h>
#include <vtkMPI.h>
#include <vtkCellArray.h>
#include <vtkDoubleArray.h>
#include <vtkMPICommunicator.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkObjectFactory.h>
#include <vtkPythonInterpreter.h>
#include <vtkSmartPointer.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "catalyst_channel.hpp"
#include "collective_file.hpp"
#include "display_check.hpp"
#include "error_codes.hpp"

namespace sf {

namespace {

// The channel name scripts use for the simulation's data: PVTrivialProducer(registrationName=
// "input"), as in ParaView's legacy Catalyst examples.
const char* const kChannel = "input";
// The same data without the ghost layer, for data extracts (see Channel below).
const char* const kOwnedChannel = "owned";
// With a liquid's spray: the spray and foam particles (PVTrivialProducer(registrationName=
// "particles")), points with the columns of kSprayTable marked in situ (velocity, radius, kind).
const char* const kParticleChannel = "particles";

/// This rank's particles of a swarm as points (one vertex each, placed by the first column, the
/// position) with a point array per other column of its table marked in situ (the spray's
/// velocity, radius and kind: 0 spray, 1 foam).
vtkSmartPointer<vtkPolyData> particle_points(const SwarmRecords& records) {
  const vtkIdType count = static_cast<vtkIdType>(records.size());
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(count);
  vtkNew<vtkCellArray> vertices;
  for (vtkIdType n = 0; n < count; ++n) {
    points->SetPoint(n, &records[0][3 * static_cast<size_t>(n)]);
    vertices->InsertNextCell(1, &n);
  }
  auto data = vtkSmartPointer<vtkPolyData>::New();
  data->SetPoints(points);
  data->SetVerts(vertices);
  const SwarmTable& table = records.table();
  for (size_t c = 1; c < table.count; ++c) {
    if (!table[c].in_situ) continue;
    vtkNew<vtkDoubleArray> array;
    array->SetName(table[c].name);
    array->SetNumberOfComponents(table[c].width);
    array->SetNumberOfTuples(count);
    const size_t width = static_cast<size_t>(table[c].width);
    for (vtkIdType n = 0; n < count; ++n)
      array->SetTuple(n, &records[c][width * static_cast<size_t>(n)]);
    data->GetPointData()->AddArray(array);
  }
  return data;
}

// How long a rank whose script failed waits for the others to reach the agreement on it. A rank
// can be stuck in a collective of the pipeline that failed elsewhere; rather than hang, the
// failing rank then aborts the job (its message and traceback are already printed).
const double kAgreementTimeoutSeconds = 60.0;

/// Where in a script's life a Python error surfaced. The order is the order of the life.
enum class ScriptStage { Import, Initialize, Request, Execute, Finalize, None };

const char* failure_text(ScriptStage stage) {
  switch (stage) {
    case ScriptStage::Import:
      return "raised an exception while it was imported (in its top-level code)";
    case ScriptStage::Initialize:
      return "raised an exception in catalyst_initialize()";
    case ScriptStage::Request:
      return "raised an exception in RequestDataDescription()";
    case ScriptStage::Execute:
      return "raised an exception in catalyst_execute() or in its extracts";
    case ScriptStage::Finalize:
      return "raised an exception in catalyst_finalize()";
    case ScriptStage::None:
      break;
  }
  return "did not fail";
}

/// Sets an attribute of a Python module to a str (decoded like a file name, so any bytes pass).
bool set_text(PyObject* module, const char* name, const std::string& value) {
  PyObject* text = PyUnicode_DecodeFSDefault(value.c_str());
  if (!text) return false;
  const int status = PyObject_SetAttrString(module, name, text);
  Py_DECREF(text);
  return status == 0;
}

/// One job script as a Catalyst pipeline. It drives ParaView's own helper for V2 scripts through
/// the same life as vtkCPPythonScriptV2Pipeline (import on the first call that has data, then
/// catalyst_initialize, then catalyst_execute per call), but runs only when the job's schedule
/// says so, hands the script its arguments, and remembers a failure instead of printing it and
/// carrying on.
class ScriptPipeline : public vtkCPPythonPipeline {
public:
  static ScriptPipeline* New();
  vtkTypeMacro(ScriptPipeline, vtkCPPythonPipeline);

  bool load(const CatalystScript& script, const std::string& job_name,
            const std::string& extracts_directory, const std::array<double, 6>& bounds) {
    script_ = script;
    job_name_ = job_name;
    extracts_directory_ = extracts_directory;
    bounds_ = bounds;
    return helper_->PrepareFromScript(script.path);
  }
  void set_due(bool due) { due_ = due; }
  ScriptStage failure() const { return failure_; }

  int RequestDataDescription(vtkCPDataDescription* description) override {
    if (!due_ || failure_ != ScriptStage::None) return 0;
    // Every field is sent whatever a script asks for, so it is enough to ask for the mesh.
    // Before the import (which needs data at hand) the script cannot be asked anything.
    for (unsigned int i = 0; i < description->GetNumberOfInputDescriptions(); ++i) {
      description->GetInputDescription(i)->AllFieldsOn();
      description->GetInputDescription(i)->GenerateMeshOn();
    }
    if (helper_->IsImported() && !helper_->RequestDataDescription(description)) {
      return fail(ScriptStage::Request);
    }
    return 1;
  }

  int CoProcess(vtkCPDataDescription* description) override {
    if (!due_ || failure_ != ScriptStage::None) return 0;
    if (!helper_->IsImported()) {
      if (!publish_arguments() || !helper_->Import(description)) return fail(ScriptStage::Import);
      if (!helper_->CatalystInitialize(description)) return fail(ScriptStage::Initialize);
    }
    if (!helper_->CatalystExecute(description)) return fail(ScriptStage::Execute);
    return 1;
  }

  int Finalize() override {
    if (helper_->IsImported() && failure_ == ScriptStage::None && !helper_->CatalystFinalize()) {
      fail(ScriptStage::Finalize);
    }
    return Superclass::Finalize();
  }

protected:
  ScriptPipeline() = default;
  ~ScriptPipeline() override = default;

private:
  int fail(ScriptStage stage) {
    failure_ = stage;
    return 0;
  }

  /// The script's view of the job, read at import time: module stablefluids_catalyst with
  /// args (the job's list for this script), script, job_name, extracts_directory and
  /// domain_bounds (x0, x1, y0, y1, z0, z1 of the whole domain: in situ, ParaView's data
  /// information describes this rank's piece only). Scripts fall back to defaults when the
  /// module is missing (opened in the ParaView GUI).
  bool publish_arguments() const {
    vtkPythonScopeGilEnsurer gil;
    PyObject* module = PyImport_AddModule("stablefluids_catalyst");  // borrowed
    bool ok = module != nullptr;
    if (ok) {
      PyObject* args = PyList_New(0);
      ok = args != nullptr;
      for (const std::string& arg : script_.args) {
        PyObject* text = ok ? PyUnicode_DecodeFSDefault(arg.c_str()) : nullptr;
        ok = text != nullptr && PyList_Append(args, text) == 0;
        Py_XDECREF(text);
      }
      ok = ok && PyObject_SetAttrString(module, "args", args) == 0;
      Py_XDECREF(args);
      PyObject* bounds = ok ? Py_BuildValue("(dddddd)", bounds_[0], bounds_[1], bounds_[2],
                                            bounds_[3], bounds_[4], bounds_[5])
                            : nullptr;
      ok = bounds != nullptr && PyObject_SetAttrString(module, "domain_bounds", bounds) == 0;
      Py_XDECREF(bounds);
      ok = ok && set_text(module, "script", script_.path) &&
           set_text(module, "job_name", job_name_) &&
           set_text(module, "extracts_directory", extracts_directory_);
    }
    if (!ok && PyErr_Occurred()) PyErr_Print();
    return ok;
  }

  vtkNew<vtkCPPythonScriptV2Helper> helper_;
  CatalystScript script_;
  std::string job_name_, extracts_directory_;
  std::array<double, 6> bounds_{};
  bool due_ = false;
  ScriptStage failure_ = ScriptStage::None;
};

vtkStandardNewMacro(ScriptPipeline);

/// Whether a script renders images, by the rule jobs/catalyst/needs_display.py applies for the
/// job scripts (keep the two alike): it creates a view, which every image extract needs, or
/// renders one itself. Data extracts and Live alone need no display.
bool script_renders(const std::string& path) {
  static const std::regex call(R"(\b(CreateView|Render)\s*\()");
  const auto renders = [](const std::filesystem::path& file) {
    std::ifstream in(file);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    return std::regex_search(text, call);
  };
  // A script may be a package: a directory of Python files, any of which may create the view.
  // (A .zip package is not looked into: its files are compressed. jobs/run and the Slurm
  // scripts do look, through needs_display.py, and start a display for it.)
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path, error))
      if (entry.path().extension() == ".py" && renders(entry.path())) return true;
    return false;
  }
  return renders(path);
}

/// Every rank learns the smallest failure code of any rank. A rank that failed itself waits at
/// most kAgreementTimeoutSeconds for the others and then aborts the job, since a rank that did
/// not fail may be waiting inside a collective of the failed pipeline and never get here.
PetscErrorCode agree_on_failure(MPI_Comm comm, int local, int* global) {
  PetscFunctionBeginUser;
  MPI_Request request;
  PetscCallMPI(MPI_Iallreduce(&local, global, 1, MPI_INT, MPI_MIN, comm, &request));
  const double start = MPI_Wtime();
  for (int done = 0;;) {
    PetscCallMPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done) break;
    if (local != INT_MAX && MPI_Wtime() - start > kAgreementTimeoutSeconds) {
      std::fprintf(stderr,
                   "stablefluids: a Catalyst script failed on this rank and the other ranks did "
                   "not reach the end of the Catalyst call within %.0f s; aborting the job\n",
                   kAgreementTimeoutSeconds);
      MPI_Abort(comm, 1);
    }
    const timespec pause = {0, 200000};  // 0.2 ms: the wait is short when nothing failed
    nanosleep(&pause, nullptr);
  }
  PetscFunctionReturn(0);
}

}  // namespace

struct CatalystAdaptor::Impl {
  RenderingDisplay display;  // first: the connection outlives ParaView's render windows
  const Grid* grid = nullptr;
  const JobConfig* job = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;  // kept alive here: Catalyst holds a pointer to it
  vtkSmartPointer<vtkCPProcessor> processor;
  vtkSmartPointer<vtkCPDataDescription> description;
  std::vector<vtkSmartPointer<ScriptPipeline>> pipelines;
  std::vector<double> next_time;  // per script with every_time: the next time it is due
  // Per script: rank 0's MPI_Wtime when it last ran (every_wall_seconds), and whether it runs at
  // the step due() decided on, which execute() then follows.
  std::vector<double> last_wall;
  std::vector<char> running;
  // "input": with the ghost layer, for filters and rendering. "owned": exactly the rank's own
  // cells, so that data extracts tile the domain (a reader that assembles pieces would
  // otherwise also assemble their ghost marks and hide cells at the seams).
  Channel input, owned;
  int whole_extent[6] = {0, 0, 0, 0, 0, 0};
  bool finalized = false;
  PetscInt last_step = 0;  // of the last execute(), for a failure in catalyst_finalize()
  double last_time = 0.0;

  bool script_due(size_t s, PetscInt step, double time) const {
    const CatalystScript& script = job->catalyst.scripts[s];
    if (script.every_time > 0.0) return time >= next_time[s] - 1e-9 * script.every_time;
    return step % script.every_steps == 0;
  }
  int first_failure() const {
    for (size_t s = 0; s < pipelines.size(); ++s) {
      const ScriptStage stage = pipelines[s]->failure();
      if (stage != ScriptStage::None) return static_cast<int>(s) * 8 + static_cast<int>(stage);
    }
    return INT_MAX;
  }
  PetscErrorCode check_scripts(PetscInt step, double time);
  PetscErrorCode check_rendering(const JobConfig& job);
};

CatalystAdaptor::CatalystAdaptor() : impl_(std::make_unique<Impl>()) {}

CatalystAdaptor::~CatalystAdaptor() {
  // ParaView must let go of its MPI communicator before PetscFinalize; finalize() is the
  // collective way out, this is the last resort of an error path.
  if (impl_->processor && !impl_->finalized) impl_->processor->Finalize();
}


/// Before the first step: a job whose scripts render needs a display on every rank. Collective;
/// a bad-job error (exit 2) with one line saying how to run the job when some rank has none.
PetscErrorCode CatalystAdaptor::Impl::check_rendering(const JobConfig& job) {
  PetscFunctionBeginUser;
  int first_renderer = INT_MAX;  // every rank reads the same scripts: no agreement needed
  for (size_t s = 0; s < job.catalyst.scripts.size() && first_renderer == INT_MAX; ++s)
    if (script_renders(job.catalyst.scripts[s].path)) first_renderer = static_cast<int>(s);
  if (first_renderer == INT_MAX) PetscFunctionReturn(0);
  const std::string problem = display.open();
  int rank = 0, first_without = INT_MAX, local_without = INT_MAX;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!problem.empty()) local_without = rank;
  PetscCallMPI(MPI_Allreduce(&local_without, &first_without, 1, MPI_INT, MPI_MIN, comm));
  if (first_without == INT_MAX) PetscFunctionReturn(0);
  // The first rank without a display says why, so the line names its own DISPLAY.
  std::vector<char> why(problem.begin(), problem.end());
  int length = static_cast<int>(why.size());
  PetscCallMPI(MPI_Bcast(&length, 1, MPI_INT, first_without, comm));
  why.resize(static_cast<size_t>(length));
  PetscCallMPI(MPI_Bcast(why.data(), length, MPI_CHAR, first_without, comm));
  const CatalystScript& script = job.catalyst.scripts[first_renderer];
  SETERRQ(comm, kErrorBadJob,
          "%s:%d: catalyst.scripts[%d] (%s) renders images, but on rank %d %.*s. Run the job with "
          "jobs/run, which starts a virtual X server (under Slurm: jobs/slurm/with_display), or "
          "give it one: Xvfb :99 -screen 0 1920x1080x24 -noreset & DISPLAY=:99 mpiexec ...",
          job.source.c_str(), script.line, first_renderer, script.path.c_str(), first_without,
          length, why.data());
}

PetscErrorCode CatalystAdaptor::setup(const Grid& grid, const SolidMask& solids,
                                      const JobConfig& job) {
  PetscFunctionBeginUser;
  Impl& m = *impl_;
  m.grid = &grid;
  m.job = &job;
  m.comm = grid.comm();
  const CatalystConfig& config = job.catalyst;
  PetscCall(make_directory(m.comm, config.directory));
  // ParaView writes every extract under this directory (the scripts name files only).
  setenv("PARAVIEW_OVERRIDE_EXTRACTS_OUTPUT_DIRECTORY", config.directory.c_str(), 1);
  // Python must not install its own SIGINT handler: the solver's handler turns SIGINT into a
  // checkpoint and a clean stop (src/app/signals.hpp; the app installs it again once the
  // in-situ analysis is set up). Later Initialize() calls by ParaView are no-ops.
  vtkPythonInterpreter::Initialize(0);
  // ParaView warns on every run about things that are expected here (the first data arrives
  // twice at the same time while a script is imported). Errors are always shown; set
  // STABLEFLUIDS_CATALYST_WARNINGS=1 to see the warnings too.
  if (!std::getenv("STABLEFLUIDS_CATALYST_WARNINGS")) {
    vtkLogger::SetStderrVerbosity(vtkLogger::VERBOSITY_ERROR);
  }

  // Before ParaView starts: it probes the display as it initialises (see RenderingDisplay).
  PetscCall(m.check_rendering(job));
  m.processor = vtkSmartPointer<vtkCPProcessor>::New();
  vtkMPICommunicatorOpaqueComm communicator(&m.comm);
  PetscCheck(m.processor->Initialize(communicator) != 0, m.comm, PETSC_ERR_LIB,
             "ParaView Catalyst failed to initialise");
  m.description = vtkSmartPointer<vtkCPDataDescription>::New();
  m.description->AddInput(kChannel);
  m.description->AddInput(kOwnedChannel);
  if (job.liquid.spray.enabled) m.description->AddInput(kParticleChannel);

  std::array<double, 6> bounds{};
  for (int a = 0; a < 3; ++a) {
    bounds[2 * a] = grid.origin(a);
    bounds[2 * a + 1] = a < grid.dim() ? grid.origin(a) + grid.length(a) : grid.origin(a);
  }
  int failed_script = INT_MAX;
  for (size_t s = 0; s < config.scripts.size(); ++s) {
    auto pipeline = vtkSmartPointer<ScriptPipeline>::New();
    if (!pipeline->load(config.scripts[s], job.name, config.directory, bounds)) {
      failed_script = std::min(failed_script, static_cast<int>(s));
    }
    m.processor->AddPipeline(pipeline);
    m.pipelines.push_back(pipeline);
    m.next_time.push_back(0.0);
  }
  int first_failed = INT_MAX;
  PetscCallMPI(MPI_Allreduce(&failed_script, &first_failed, 1, MPI_INT, MPI_MIN, m.comm));
  PetscCheck(first_failed == INT_MAX, m.comm, PETSC_ERR_FILE_READ,
             "%s:%d: catalyst.scripts[%d]: ParaView could not load '%s' as a Catalyst script",
             job.source.c_str(), config.scripts[first_failed].line, first_failed,
             config.scripts[first_failed].path.c_str());
  std::vector<std::string> cell_fields;
  for (const ScalarConfig& scalar : job.scalars) cell_fields.push_back(scalar.name);
  if (job.liquid.enabled) cell_fields.push_back(LiquidConfig::kLevelSetName);
  if (job.liquid.enabled && job.liquid.interface == LiquidConfig::Interface::Vof)
    cell_fields.push_back(LiquidConfig::kFractionName);
  PetscCall(m.input.lay_out(grid, solids, cell_fields, true));
  m.input.name = kChannel;
  PetscCall(m.owned.lay_out(grid, solids, cell_fields, false));
  m.owned.name = kOwnedChannel;
  for (int a = 0; a < 3; ++a) {
    m.whole_extent[2 * a] = 0;
    m.whole_extent[2 * a + 1] = a < grid.dim() ? static_cast<int>(grid.cells(a)) : 0;
  }
  PetscCall(PetscPrintf(m.comm, "catalyst: %zu script(s), extracts in %s\n",
                        config.scripts.size(), config.directory.c_str()));
  PetscFunctionReturn(0);
}

void CatalystAdaptor::start_at(double time, bool restarted) {
  Impl& m = *impl_;
  for (size_t s = 0; s < m.next_time.size(); ++s) {
    const double every = m.job->catalyst.scripts[s].every_time;
    if (every <= 0.0) continue;
    // A fresh run is due at once (the initial state); a restarted one at the next multiple.
    m.next_time[s] = restarted ? (std::floor(time / every + 1e-9) + 1.0) * every : time;
  }
}

PetscErrorCode CatalystAdaptor::due(PetscInt step, double time, bool* due) {
  PetscFunctionBeginUser;
  Impl& m = *impl_;
  const size_t count = m.pipelines.size();
  m.running.assign(count, 0);
  m.last_wall.resize(count, -HUGE_VAL);
  bool ask_clock = false;
  for (size_t s = 0; s < count; ++s) {
    m.running[s] = m.script_due(s, step, time) ? 1 : 0;
    ask_clock = ask_clock || (m.running[s] && m.job->catalyst.scripts[s].every_wall_seconds > 0.0);
  }
  // ask_clock is the same on every rank (it follows the job); rank 0's clock then decides for
  // every rank, as two ranks' clocks need not agree.
  if (ask_clock) {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(m.comm, &rank));
    if (rank == 0) {
      const double now = MPI_Wtime();
      for (size_t s = 0; s < count; ++s) {
        const double every = m.job->catalyst.scripts[s].every_wall_seconds;
        if (m.running[s] && every > 0.0 && now - m.last_wall[s] < every) m.running[s] = 0;
        if (m.running[s] && every > 0.0) m.last_wall[s] = now;
      }
    }
    PetscCallMPI(MPI_Bcast(m.running.data(), static_cast<int>(count), MPI_CHAR, 0, m.comm));
  }
  *due = std::any_of(m.running.begin(), m.running.end(), [](char r) { return r != 0; });
  PetscFunctionReturn(0);
}


PetscErrorCode CatalystAdaptor::Impl::check_scripts(PetscInt step, double time) {
  PetscFunctionBeginUser;
  int failure = INT_MAX;
  PetscCall(agree_on_failure(comm, first_failure(), &failure));
  if (failure == INT_MAX) PetscFunctionReturn(0);
  const int s = failure / 8;
  const CatalystScript& script = job->catalyst.scripts[s];
  // Printed here once and returned as a plain error code rather than raised with SETERRQ on the
  // communicator: PETSc's handler lets only rank 0 return from a collective error (the others
  // sleep and exit with status 0), and every rank must stop with a failure status.
  PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                         "stablefluids: error: Catalyst script %s (%s:%d) %s at step %" PetscInt_FMT
                         " (t = %g); the Python traceback is printed above. The run stops here; "
                         "frames and checkpoints written so far are intact.\n",
                         script.path.c_str(), job->source.c_str(), script.line,
                         failure_text(static_cast<ScriptStage>(failure % 8)), step, time));
  PetscFunctionReturn(PETSC_ERR_LIB);
}

PetscErrorCode CatalystAdaptor::execute(const InSituState& state) {
  PetscFunctionBeginUser;
  Impl& m = *impl_;
  // As due() decided at this step.
  for (size_t s = 0; s < m.pipelines.size(); ++s)
    m.pipelines[s]->set_due(s < m.running.size() && m.running[s]);
  m.description->ResetAll();
  m.description->SetTimeData(state.time, static_cast<vtkIdType>(state.step));
  if (m.processor->RequestDataDescription(m.description) != 0 &&
      m.first_failure() == INT_MAX) {
    for (Channel* channel : {&m.input, &m.owned}) {
      vtkCPInputDataDescription* input = m.description->GetInputDescriptionByName(channel->name);
      if (!input->GetIfGridIsNecessary()) continue;
      PetscCall(channel->fill(*m.grid, state));
      input->SetGrid(channel->image);
      input->SetWholeExtent(m.whole_extent);
    }
    vtkCPInputDataDescription* particles =
        m.job->liquid.spray.enabled ? m.description->GetInputDescriptionByName(kParticleChannel)
                                    : nullptr;
    if (particles && state.spray && particles->GetIfGridIsNecessary())
      particles->SetGrid(particle_points(*state.spray));
    m.processor->CoProcess(m.description);
    if (particles) particles->SetGrid(nullptr);
    for (Channel* channel : {&m.input, &m.owned}) {
      vtkCPInputDataDescription* input = m.description->GetInputDescriptionByName(channel->name);
      if (!input->GetGrid()) continue;
      input->SetGrid(nullptr);
      PetscCall(channel->release());
    }
  }
  m.last_step = state.step;
  m.last_time = state.time;
  PetscCall(m.check_scripts(state.step, state.time));
  for (size_t s = 0; s < m.pipelines.size(); ++s) {
    const double every = m.job->catalyst.scripts[s].every_time;
    if (every > 0.0 && m.running[s]) {
      m.next_time[s] = (std::floor(state.time / every + 1e-9) + 1.0) * every;
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode CatalystAdaptor::finalize() {
  PetscFunctionBeginUser;
  Impl& m = *impl_;
  if (m.finalized) PetscFunctionReturn(0);
  m.finalized = true;
  m.processor->Finalize();
  PetscCall(m.check_scripts(m.last_step, m.last_time));
  PetscFunctionReturn(0);
}

}  // namespace sf
