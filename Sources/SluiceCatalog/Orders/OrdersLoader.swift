import SluiceCore

/// Writes orders, their items and their customers with statements prepared once per run.
///
/// Customers are upserted (one row per id; the last order's name wins). Orders follow the
/// conflict policy: `upsert` updates the order and replaces its items, `replace` deletes it
/// (items cascade) and inserts it anew, `ignore` keeps an existing order and its items,
/// `fail` lets the primary key reject a second copy as a `constraint` issue.
public final class OrdersLoader: RecordLoader {
  private let connection: SQLiteConnection
  private let conflict: ConflictPolicy
  private let upsertCustomer: SQLiteStatement
  private let insertOrder: SQLiteStatement
  /// For `upsert`: updates an order that `insertOrder` (which ignores conflicts) found present.
  private let updateOrder: SQLiteStatement
  private let deleteOrder: SQLiteStatement
  private let deleteItems: SQLiteStatement
  private let insertItem: SQLiteStatement
  /// Customers this run has written, with their names, so a repeat customer costs no statement.
  /// Bounded: cleared when full. Filled only after a whole record loaded, so a record that a
  /// savepoint rolls back can never leave a name here that the database does not hold.
  private var writtenCustomers: [Int64: String] = [:]
  private static let customerCacheLimit = 65_536
  private var orderRows = 0
  private var itemRows = 0
  private var customerRows = 0

  init(connection: SQLiteConnection, conflict: ConflictPolicy) throws {
    self.connection = connection
    self.conflict = conflict
    upsertCustomer = try connection.prepare(
      """
      INSERT INTO customers (customer_id, name) VALUES (?, ?)
      ON CONFLICT (customer_id) DO UPDATE SET name = excluded.name WHERE name IS NOT excluded.name
      """)
    let insert = """
      INSERT INTO orders (order_id, amount_minor, currency, status_id, created_at, customer_id)
      VALUES (?, ?, ?, ?, ?, ?)
      """
    switch conflict {
    case .upsert, .ignore:
      // An upsert tries the insert first and updates only when the order exists, so the common
      // case — a new order — costs one statement and no delete of items it cannot have.
      insertOrder = try connection.prepare(insert + " ON CONFLICT (order_id) DO NOTHING")
    case .replace, .fail:
      insertOrder = try connection.prepare(insert)
    }
    updateOrder = try connection.prepare(
      """
      UPDATE orders SET amount_minor = ?2, currency = ?3, status_id = ?4, created_at = ?5,
        customer_id = ?6
      WHERE order_id = ?1
      """)
    deleteOrder = try connection.prepare("DELETE FROM orders WHERE order_id = ?")
    deleteItems = try connection.prepare("DELETE FROM order_items WHERE order_id = ?")
    insertItem = try connection.prepare(
      "INSERT INTO order_items (order_id, line, sku, qty, price_minor) VALUES (?, ?, ?, ?, ?)")
  }

  public func load(_ order: Order) throws -> LoadOutcome {
    if conflict == .replace {
      try deleteOrder.bind(order.id, at: 1)
      try deleteOrder.execute()
    }
    let customerIsCurrent = writtenCustomers[order.customer.id] == order.customer.name
    if !customerIsCurrent {
      try upsertCustomer.bind(order.customer.id, at: 1)
      try upsertCustomer.bind(order.customer.name, at: 2)
      try upsertCustomer.execute()
      customerRows += connection.changes
    }

    try bindOrder(insertOrder, order)
    try insertOrder.execute()
    if connection.changes == 0 {
      // The order exists (upsert and ignore only: the others fail or deleted it first).
      if conflict == .ignore { return .keptExisting }
      try bindOrder(updateOrder, order)
      try updateOrder.execute()
      try deleteItems.bind(order.id, at: 1)
      try deleteItems.execute()
    }
    orderRows += 1

    for (index, item) in order.items.enumerated() {
      try insertItem.bind(order.id, at: 1)
      try insertItem.bind(Int64(index + 1), at: 2)
      try insertItem.bind(item.sku, at: 3)
      try insertItem.bind(Int64(item.quantity), at: 4)
      try insertItem.bind(item.priceMinor, at: 5)
      try insertItem.execute()
    }
    itemRows += order.items.count
    if !customerIsCurrent {
      if writtenCustomers.count >= Self.customerCacheLimit { writtenCustomers.removeAll(keepingCapacity: true) }
      writtenCustomers[order.customer.id] = order.customer.name
    }
    return .written
  }

  private func bindOrder(_ statement: SQLiteStatement, _ order: Order) throws {
    try statement.bind(order.id, at: 1)
    try statement.bind(order.amountMinor, at: 2)
    try statement.bind(order.currency, at: 3)
    try statement.bind(order.status.lookupID, at: 4)
    try statement.bind(order.createdAt.text, at: 5)
    try statement.bind(order.customer.id, at: 6)
  }

  public var rowsWritten: [String: Int] {
    ["orders": orderRows, "order_items": itemRows, "customers": customerRows]
  }
}
