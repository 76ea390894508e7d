// Deterministic order dumps for the side-by-side benchmark, in every form the contenders read:
//
//   swift run -c release orders-generator --count N [--seed S] [--broken] --out DIRECTORY
//
// writes DIRECTORY/orders.json.gz (a top-level array, one order per line), orders.ndjson.gz,
// orders.xml.gz (`<orders>` with one `<order>` element per line: read it with
// `--format xml --record-path orders.order`), and the same rows, normalized exactly as Sluice
// stores them, as orders.csv, order_items.csv, customers.csv and order_statuses.csv (the input
// of the sqlite3 `.import` and C floors). The same N and seed always give the same bytes.
//
// `--broken` damages one order per kind of `OrderDamage`, spread evenly, alike in the JSON,
// NDJSON and XML dumps, and writes no CSVs (they are only ever the floors' valid rows).
import Foundation
import GzipOutput
import OrderSamples
@_spi(Internals) import SluiceCore

let arguments = Array(CommandLine.arguments.dropFirst())
func value(_ name: String) -> String? {
  arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
guard let count = value("--count").flatMap(Int.init), count > 0, let out = value("--out") else {
  FileHandle.standardError.write(Data("usage: orders-generator --count N [--seed S] [--broken] --out DIRECTORY\n".utf8))
  exit(64)
}
let seed = value("--seed").flatMap(UInt64.init) ?? 1
try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
func path(_ name: String) -> String { (out as NSString).appendingPathComponent(name) }

let broken = arguments.contains("--broken")
let statusIDs = ["pending": 1, "completed": 2, "cancelled": 3]
var sampler = OrderSampler(seed: seed, customers: max(count / 4, 1))
let damage = broken ? OrderDamage.schedule(count: count) : [:]

let json = try OutputFile(path("orders.json.gz"), gzip: true)
let ndjson = try OutputFile(path("orders.ndjson.gz"), gzip: true)
let xml = try OutputFile(path("orders.xml.gz"), gzip: true)
let ordersCSV = broken ? nil : try OutputFile(path("orders.csv"), gzip: false)
let itemsCSV = broken ? nil : try OutputFile(path("order_items.csv"), gzip: false)
try ordersCSV?.write("order_id,amount_minor,currency,status_id,created_at,customer_id\n")
try itemsCSV?.write("order_id,line,sku,qty,price_minor\n")
var customersSeen = Set<Int64>()
try json.write("[\n")
try xml.write("<orders>\n")
for index in 0..<count {
  let (order, seconds, milliseconds) = sampler.next()
  var record = order.record
  damage[index]?.apply(to: &record)
  let text = record.json
  try json.write(text + (index + 1 < count ? ",\n" : "\n"))
  try ndjson.write(text + "\n")
  try xml.write(record.xml(element: "order") + "\n")
  guard let ordersCSV, let itemsCSV else { continue }
  customersSeen.insert(order.customerID)
  for (line, item) in order.items.enumerated() {
    try itemsCSV.write("\(order.id),\(line + 1),\(item.sku),\(item.qty),\(item.priceMinor)\n")
  }
  let instant = Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000)
  let status = statusIDs[order.status] ?? 0
  try ordersCSV.write(
    "\(order.id),\(order.amount),\(order.currency),\(status),\(TimestampText.text(instant)),\(order.customerID)\n")
}
try json.write("]\n")
try xml.write("</orders>\n")
for file in [json, ndjson, xml] { try file.close() }
try ordersCSV?.close()
try itemsCSV?.close()

if broken {
  print("wrote \(count) orders, \(damage.count) of them damaged, to \(out)")
  exit(0)
}
let customersCSV = try OutputFile(path("customers.csv"), gzip: false)
try customersCSV.write("customer_id,name\n")
for id in customersSeen.sorted() { try customersCSV.write("\(id),\(OrderSampler.customerName(id))\n") }
try customersCSV.close()
let statusesCSV = try OutputFile(path("order_statuses.csv"), gzip: false)
try statusesCSV.write("id,name,is_final,retired\n1,pending,0,0\n2,completed,1,0\n3,cancelled,1,0\n")
try statusesCSV.close()
print("wrote \(count) orders (\(customersSeen.count) customers) to \(out)")
