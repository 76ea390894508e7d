extension ParallelRun {
  /// A lane's share of the run (`RunPart`): its number, and what the lanes share.
  struct LanePart: RunPart {
    let coordination: LaneCoordination
    let number: Int

    func countRejected(atInput index: Int) -> Int { coordination.countRejected(atInput: index) }

    func checkGoesOn(atInput index: Int) throws {
      if coordination.mustStop(at: index) { throw LaneStopped() }
    }

    var wantsProgress: Bool { coordination.wantsProgress }

    func report(_ progress: PartProgress) { coordination.report(lane: number, progress) }
  }
}
