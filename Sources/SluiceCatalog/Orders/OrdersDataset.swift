@_spi(Internals) import SluiceCore

/// Orders with their customer and line items → `orders`, `order_items`, `customers`, and the
/// enum-owned `order_statuses`. Orders are where correctness matters most (seed 002): the
/// nightly pipeline is strict, an unknown status is never mapped to a normal one.
public struct OrdersDataset: Dataset {
  public init() {}

  public var name: String { "orders" }
  public var summary: String { "orders with customers and line items → orders, order_items, customers" }

  /// One row per customer id; the last order's name wins.
  static let customers = Table(
    "customers", key: ["customer_id"],
    columns: [.integer("customer_id", field: "customer.id"), .text("name", field: "customer.name")], onConflict: .upsert
  )
  static let orders = Table(
    "orders", key: ["order_id"],
    columns: [
      .text("order_id", field: "orderId"), .integer("amount_minor", field: "amount"),
      .text("currency", checks: [.length(3)]), .lookup("status_id", OrderStatus.self, field: "status"),
      .timestamp("created_at", field: "createdAt"),
      .reference("customer_id", to: customers, field: "customer.id"),
    ],
    indexes: [Index("orders_by_customer", on: ["customer_id"], deferrable: true)])
  static let items = Table(
    "order_items", childOf: orders, position: "line", startingAt: 1, field: "items",
    columns: [
      .text("sku"), .integer("qty", checks: [.atLeast(1)]),
      .integer("price_minor", field: "priceMinor", checks: [.atLeast(0)]),
    ])
  static let schema = Schema([customers, orders, items])
  public var schema: Schema { Self.schema }

  static let idNotBlank = ValidationRule(
    "orderId is not blank", message: "must not be blank", constraints: [.notBlank(at: "orderId")])
  static let currencyCode = ValidationRule(
    "currency is a three-letter code", message: "must be three uppercase letters (ISO 4217)",
    constraints: [.pattern("^[A-Z]{3}$", at: "currency")])
  static let hasItems = ValidationRule(
    "orders have at least one item", message: "must list at least one item", constraints: [.nonEmpty(at: "items")])
  static let quantityPositive = ValidationRule(
    "item quantities are at least 1", code: .outOfRange, message: "must be at least 1",
    constraints: [.atLeast(1, at: "items[].qty")])
  static let priceNotNegative = ValidationRule(
    "item prices are not negative", code: .outOfRange, message: "must not be negative",
    constraints: [.atLeast(0, at: "items[].priceMinor")])
  static let skuNotBlank = ValidationRule(
    "item SKUs are not blank", message: "must not be blank", constraints: [.notBlank(at: "items[].sku")])
  static let customerNameNotBlank = ValidationRule(
    "customer names are not blank", message: "must not be blank", constraints: [.notBlank(at: "customer.name")])

  public var rules: [ValidationRule] {
    [
      Self.idNotBlank, Self.currencyCode, Self.hasItems, Self.quantityPositive, Self.priceNotNegative,
      Self.skuNotBlank, Self.customerNameNotBlank,
    ]
  }

  /// The map stage reads `status` as an `OrderStatus`.
  public var recordConstraints: [FieldConstraint] { [.oneOf(OrderStatus.self, at: "status")] }

  public func validate(_ order: OrderDTO, into validation: inout Validation) {
    validation.checkNotBlank(Self.idNotBlank, order.identifier, at: "orderId")
    validation.checkCharacters(
      Self.currencyCode, order.currency, length: 3...3, where: { $0 >= "A" && $0 <= "Z" }, at: "currency")
    validation.check(Self.hasItems, !order.items.isEmpty, at: "items")
    validation.checkNotBlank(Self.customerNameNotBlank, order.customer.name, at: "customer.name")
    for (index, item) in order.items.enumerated() {
      validation.check(Self.quantityPositive, item.qty >= 1, at: "items[\(index)].qty")
      validation.check(Self.priceNotNegative, item.priceMinor >= 0, at: "items[\(index)].priceMinor")
      validation.checkNotBlank(Self.skuNotBlank, item.sku, at: "items[\(index)].sku")
    }
  }

  public func map(_ order: OrderDTO, context _: inout MappingContext) throws(MappingError) -> Order {
    guard let status = OrderStatus(rawValue: order.status) else {
      throw MappingError(
        code: .unsupportedEnumValue, path: "status",
        message:
          "not an order status this version knows (\(OrderStatus.allCases.map(\.rawValue).joined(separator: ", ")))")
    }
    return Order(
      id: order.identifier, amountMinor: order.amountMinor, currency: order.currency, status: status,
      createdAt: Timestamp(order.createdAt), customer: Customer(id: order.customer.id, name: order.customer.name),
      items: order.items.map { OrderItem(sku: $0.sku, quantity: $0.qty, priceMinor: $0.priceMinor) })
  }

  public func rows(for order: Order, into rows: inout RecordRows) {
    rows.add(Self.customers, order.customer.id, order.customer.name)
    rows.add(Self.orders, order.id, order.amountMinor, order.currency, order.status, order.createdAt, order.customer.id)
    for item in order.items {
      rows.add(Self.items, item.sku, item.quantity, item.priceMinor)
    }
  }
}
