/// A store driver that loads the lanes of a run over several connections at once (`--jobs N`),
/// as one all-or-nothing run with one report: the driver knows how its server commits several
/// transactions together.
///
/// The engine plans the lanes (`LanePlan`) and reads each input as a serial run does; the driver
/// opens the connections, runs the lanes and commits them.
package protocol ParallelLoadingDriver: StoreDriver {
  func loadInLanes(
    _ runner: PipelineRunner, plan: LanePlan, outputs: RunOutputs, state: inout RunState,
    opened: inout PipelineRunner.Opened
  ) throws -> RunReport
}
