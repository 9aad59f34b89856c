// What a run writes and reads back: frames, checkpoints and the restart from one, in-situ
// output, and the end-of-run check that everything it announced is there. The fields are the
// Simulation's; what the physics modules keep besides them (marker particles, spray, floating
// bodies) comes from and goes back to the modules (module.hpp, ModuleRecords).
#include <algorithm>

#include "simulation.hpp"

namespace sf {

PetscErrorCode Simulation::resume(const std::string& restart, RunState* state) {
  PetscFunctionBeginUser;
  std::string path = restart;
  StepHistory history, *with_history = nullptr;
  if (bdf2_) {
    history.velocity = &bdf2_->previous_velocity();
    history.scalars = &bdf2_->previous_scalars();
    with_history = &history;
  }
  ModuleRecords records;
  for (const std::unique_ptr<PhysicsModule>& module : modules_) module->expect(&records);
  ParticleRecords* particles = records.particles ? &*records.particles : nullptr;
  SprayRecords* spray = records.spray ? &*records.spray : nullptr;
  if (restart == "latest")
    PetscCall(checkpointer_.read_latest(velocity_, scalars_, projection_->pressure(), state,
                                        &path, nullptr, with_history, particles, spray));
  else
    PetscCall(checkpointer_.read(path, velocity_, scalars_, projection_->pressure(), state,
                                 with_history, particles, spray));
  if (bdf2_) PetscCall(bdf2_->resume(history.dt));
  flow_.time = state->time;
  flow_.step = state->step;
  records.bodies = state->bodies;
  records.volume_control = state->volume_control;
  // The checkpoint's velocity holds the moving obstacles' faces; the mask follows the time
  // (resumed), and so do inflows that vary.
  for (const std::unique_ptr<PhysicsModule>& module : modules_)
    PetscCall(module->restore(flow_, records));
  for (const std::unique_ptr<PhysicsModule>& module : modules_) PetscCall(module->resumed(flow_));
  velocity_.set_time(flow_.time);
  projection_->set_last_dt(state->last_dt);
  PetscCall(writer_.resume(state->frame_times, scalars_, true));
  restarted_ = true;
  PetscCall(PetscPrintf(grid_.comm(), "stablefluids: restarting from %s at step %" PetscInt_FMT
                                      ", t = %.17g\n",
                        path.c_str(), flow_.step, flow_.time));
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::module_records(ModuleRecords* records) {
  PetscFunctionBeginUser;
  for (const std::unique_ptr<PhysicsModule>& module : modules_) PetscCall(module->save(records));
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::write_frame() {
  PetscFunctionBeginUser;
  PetscCall(timers_.begin(Stage::Output));
  PetscCall(velocity_.fill_ghosts());
  ModuleRecords records;
  records.want_spray = false;
  PetscCall(module_records(&records));
  PetscCall(writer_.write(velocity_, scalars_, projection_->pressure(), flow_.step, flow_.time,
                          records.particles ? &*records.particles : nullptr));
  PetscCall(timers_.end(Stage::Output));
  PetscCall(PetscPrintf(grid_.comm(), "  frame %d at t = %.6g -> %s\n",
                        writer_.frames_written() - 1, flow_.time,
                        writer_.frame_path(writer_.frames_written() - 1).c_str()));
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::run_in_situ(double* seconds) {
  PetscFunctionBeginUser;
  *seconds = 0.0;
  bool due = false;
  PetscCall(schedule_.in_situ_due(flow_.step, flow_.time, &due));
  if (!due) PetscFunctionReturn(0);
  const double start = MPI_Wtime();
  PetscCall(timers_.begin(Stage::InSitu));
  PetscCall(flow_.fill_all_ghosts());
  InSituState state;
  state.velocity = &velocity_;
  state.scalars = &scalars_;
  state.pressure = projection_->pressure();
  ModuleRecords records;
  records.want_particles = false;
  PetscCall(module_records(&records));
  if (records.spray) state.spray = &*records.spray;
  state.step = flow_.step;
  state.time = flow_.time;
  PetscCall(in_situ_->execute(state));
  PetscCall(timers_.end(Stage::InSitu));
  *seconds = MPI_Wtime() - start;
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::write_checkpoint(std::string* path) {
  PetscFunctionBeginUser;
  RunState state;
  state.time = flow_.time;
  state.step = flow_.step;
  state.last_dt = projection_->last_dt();
  state.next_frame = schedule_.next_frame();
  state.frame_times = writer_.frame_times();
  PetscCall(timers_.begin(Stage::Output));
  ModuleRecords records;
  PetscCall(module_records(&records));
  state.bodies = records.bodies;
  state.volume_control = records.volume_control;
  StepHistory history;
  if (bdf2_) {
    history.velocity = &bdf2_->previous_velocity();
    history.scalars = &bdf2_->previous_scalars();
    history.dt = bdf2_->previous_dt();
  }
  PetscCall(checkpointer_.write(velocity_, scalars_, projection_->pressure(), state, path,
                                &history, records.particles ? &*records.particles : nullptr,
                                records.spray ? &*records.spray : nullptr));
  PetscCall(timers_.end(Stage::Output));
  schedule_.checkpoint_written(flow_.step, flow_.time);
  PetscCall(PetscPrintf(grid_.comm(), "  checkpoint at step %" PetscInt_FMT " -> %s\n", flow_.step,
                        path->c_str()));
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::write_what_is_due(StepReport* report, int* signal) {
  PetscFunctionBeginUser;
  // Before anything is written at this boundary: the directories are still this run's.
  PetscCall(lock_.check(grid_.comm()));
  PetscCall(run_in_situ(&report->insitu_seconds));
  // The frame and checkpoint this step owes, timed for the progress line: a step's honest
  // cost includes them.
  const double output_start = MPI_Wtime();
  if (schedule_.frame_due(flow_.time)) PetscCall(write_frame());
  CheckpointDue checkpoint;
  PetscCall(schedule_.checkpoint_due(flow_.step, flow_.time, &checkpoint));
  std::string path;
  if (checkpoint.why != CheckpointReason::None) PetscCall(write_checkpoint(&path));
  report->output_seconds = MPI_Wtime() - output_start;
  *signal = checkpoint.signal;
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::finish(double start, const char* reason, int first_frame) {
  PetscFunctionBeginUser;
  if (in_situ_) PetscCall(in_situ_->finalize());
  PetscCall(log_.finish(timers_.times(), flow_.step, MPI_Wtime() - start, reason));
  // A run ends well only if what it announces is there: the frames it wrote, their index and
  // its logs, and its directories still its own. A run stopped by a signal (first_frame < 0) is
  // to be continued: only its lock, logs and index are checked, so that frames moved away
  // meanwhile (archived, say) do not keep a requeued job from continuing. A run that writes no
  // frames (output.interval 0 without an initial frame, as scaling studies run) has no index.
  std::vector<std::string> written = {log_.timings_path()};
  if (writer_.frames_written() > 0) written.push_back(writer_.index_path());
  for (int frame = std::max(first_frame, 0); first_frame >= 0 && frame < writer_.frames_written();
       ++frame)
    written.push_back(writer_.frame_path(frame));
  PetscCall(lock_.check(grid_.comm(), written));
  PetscFunctionReturn(0);
}

// The time loop: choose dt, step, check the state, and do what the schedule says is due.
}  // namespace sf
