/// How a parallel run (`--jobs N`) splits its inputs into lanes that can load at once, each over
/// its own connection: two inputs share a lane when their datasets share a table, or a table of
/// one references, is the parent of, or takes ids from (an enum's lookup table) a table of the
/// other — directly or through other tables. Within a lane the inputs keep their order.
///
/// Lanes then touch disjoint sets of tables, so no lane reads a row another lane writes, or
/// waits for its locks. The files of one glob share their dataset's tables, so they share a lane.
package struct LanePlan: Equatable, Sendable {
  /// Each lane's inputs, by index in the pipeline, in input order; lanes in the order of their
  /// first input.
  package let lanes: [[Int]]
  /// Each table's lane, for every table of the inputs' datasets and their lookups.
  package let laneOfTable: [String: Int]

  init(schemas: [Schema]) {
    var parent: [String: String] = [:]
    func root(_ table: String) -> String {
      var table = table
      while let up = parent[table], up != table {
        parent[table] = parent[up]  // path halving
        table = up
      }
      parent[table] = table
      return table
    }
    func join(_ a: String, _ b: String) {
      let (x, y) = (root(a), root(b))
      if x != y { parent[y] = x }
    }
    for schema in schemas {
      let names = schema.tableNames
      for name in names { join(names[0], name) }
      for table in schema.tables {
        if let link = table.parent { join(table.name, link.table.name) }
        for column in table.columns {
          if let reference = column.reference { join(table.name, reference.table.name) }
          if let lookup = column.lookup { join(table.name, lookup.table) }
        }
      }
    }
    var laneOfRoot: [String: Int] = [:]
    var lanes: [[Int]] = []
    for (index, schema) in schemas.enumerated() {
      guard let first = schema.tableNames.first else {
        lanes.append([index])  // a dataset without tables writes nothing: a lane of its own
        continue
      }
      let key = root(first)
      if let lane = laneOfRoot[key] {
        lanes[lane].append(index)
      } else {
        laneOfRoot[key] = lanes.count
        lanes.append([index])
      }
    }
    self.lanes = lanes
    var laneOfTable: [String: Int] = [:]
    for table in parent.keys {
      if let lane = laneOfRoot[root(table)] { laneOfTable[table] = lane }
    }
    self.laneOfTable = laneOfTable
  }
}
