#!/usr/bin/env python3
"""Writes the committed seeds of the fuzz targets (Fuzz/seeds/TARGET/*). Run from anywhere:
`python3 Fuzz/seeds/make-seeds.py`. The json-reader and decoder seeds start with the target's
control byte (see the header of each target's source file)."""
import gzip
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

ORDER = (b'{"orderId":"0000000001","amount":4000269,"currency":"EUR","status":"pending",'
         b'"createdAt":"2023-01-01T00:00:03.922Z","customer":{"id":319,"name":"Aiko Lima"},'
         b'"items":[{"sku":"SKU-97227","qty":6,"priceMinor":416960},'
         b'{"sku":"SKU-90498","qty":9,"priceMinor":15257}]}')
ORDER2 = (b'{"orderId":"0000000011","amount":1552094,"currency":"GBP","status":"cancelled",'
          b'"createdAt":"2023-01-01T00:06:19Z","customer":{"id":7,"name":"Zo\xc3\xab M\xc3\xbcller"},'
          b'"items":[{"sku":"SKU-56958","qty":6,"priceMinor":78297}]}')
FRUIT = (b'{"fruitID": "F0000001", "name": "Apple", "color": "red", "recipes": [{"title": '
         b'"Five-minute Apple Salad", "description": "Five-minute salad with apple.", '
         b'"videoTutorial": "https://videos.example.com/apple-salad/00000000"}, {"title": '
         b'"Cr\xc3\xa8me Apple Clafoutis", "description": "Cr\xc3\xa8me clafoutis.", '
         b'"videoTutorial": "https://videos.example.com/apple-clafoutis/00000000"}]}')


def write(target, name, data):
    directory = os.path.join(HERE, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def reset(target):
    """Removes the target's generated seeds; hand-made ones (`*.bin`, such as xml-reader's
    latin1-attribute-name.bin) are not written here and are kept."""
    directory = os.path.join(HERE, target)
    if not os.path.isdir(directory):
        return
    for name in os.listdir(directory):
        if not name.endswith(".bin"):
            os.remove(os.path.join(directory, name))


# json-reader: control byte = layout | path << 2 | buffer << 4 | chunk5 << 6 | small limits << 7
def reader(name, layout, document, path=0, buffer=0, chunk=False, small=False):
    control = layout | path << 2 | buffer << 4 | (0x40 if chunk else 0) | (0x80 if small else 0)
    write("json-reader", name, bytes([control]) + document)


reset("json-reader")
reader("array-mixed", 0, b'[{"a":1},{"b":[true,false,null]},"s\\u00e9\\n",-1.5e+3,0,[]]\n')
reader("array-orders", 0, b'[\n' + ORDER + b',\n' + ORDER2 + b'\n]\n', buffer=2)
reader("array-bom", 0, b'\xef\xbb\xbf [ 1 , "x" ]', buffer=1)
reader("array-empty", 0, b' [ ] ')
reader("array-trailing-comma", 0, b'[1,2,]')
reader("array-unicode", 0, '["ü€𝄞", "\\ud83d\\ude00", "\\"\\\\\\/\\b\\f\\n\\r\\t"]'.encode(), chunk=True)
reader("path-a", 1, b'{"x":{"y":[1,2]},"a":[{"k":"v"},[]],"z":0}', path=0)
reader("path-data-fruits", 1, b'{"data":{"meta":"m","fruits":[' + FRUIT + b']},"tail":[1,{"t":2}]}',
       path=1, buffer=3)
reader("path-fruits", 1, b'{"exportedAt": "2026-11-01T00:00:00Z", "fruits": [\n  ' + FRUIT + b'\n]}\n',
       path=2)
reader("path-empty-key", 1, b'{"\\u0061":0,"":[1,2,3]}', path=3, chunk=True)
reader("path-not-array", 1, b'{"a":{"b":1}}', path=0)
reader("ndjson", 2, ORDER + b'\n' + ORDER2 + b'\n')
reader("ndjson-bad-lines", 2, b'{"a":1}\n{"a":\n\n  {"b":[1,2]}  \r\n"x\ny"\n[1,2] 3\n{"c":tru}\n7\n', buffer=1)
reader("ndjson-crlf", 2, b'{"a":1}\r\n\r\n{"a":2}\r\n', buffer=3, chunk=True)
reader("document", 3, b'{"a":[1,{"b":null}],"c":"d"}')
reader("document-scalar", 3, b' -0.5e-7 ', buffer=1)
reader("small-limits-deep", 0, b'[[[[[[[[[[1]]]]]]]]]]', small=True)
reader("small-limits-long", 2, b'"' + b'x' * 40 + b'"\n{"k":"' + b'y' * 300 + b'"}\n[1]\n', small=True)

# decoder: control byte = legacyScalars | unknown fields << 1 | dates << 2 | reader first << 7
def decoder(name, record, legacy=False, unknown=True, dates=0, checked=False):
    control = (1 if legacy else 0) | (2 if unknown else 0) | dates << 2 | (0x80 if checked else 0)
    write("decoder", name, bytes([control]) + record)


reset("decoder")
decoder("order", ORDER)
decoder("order-checked", ORDER2, checked=True)
decoder("order-legacy", b'{"orderId":123,"amount":"4000","currency":"EUR","status":"pending",'
        b'"createdAt":"2023-01-01T00:00:03.922Z","customer":{"id":"40","name":"X"},'
        b'"items":[{"sku":7,"qty":"6","priceMinor":"10"}]}', legacy=True)
decoder("order-epoch", ORDER.replace(b'"2023-01-01T00:00:03.922Z"', b'1672531205'), dates=1)
decoder("order-epoch-ms", ORDER.replace(b'"2023-01-01T00:00:03.922Z"', b'"1672531205000"'), dates=2,
        legacy=True)
decoder("order-pattern", ORDER.replace(b'2023-01-01T00:00:03.922Z', b'2023-01-01 00:00:05'), dates=3)
decoder("order-ddmmyyyy", ORDER.replace(b'2023-01-01T00:00:03.922Z', b'01/01/2023'), dates=4)
decoder("order-offset", ORDER.replace(b'2023-01-01T00:00:03.922Z', b'2023-01-01T00:00:05.25+01:00'), dates=5)
decoder("order-no-dates", ORDER, dates=7)
decoder("order-unknown-dup", b'{"orderId":"1","orderId":"2","amount":1,"currency":"eur","status":"lost",'
        b'"createdAt":"2023-02-30T25:00:00Z","customer":{"id":1,"name":" ","extra":[1]},"items":[],"x":null}')
decoder("order-out-of-range", ORDER.replace(b'4000269', b'9223372036854775808').replace(b'"qty":6', b'"qty":6.5'))
decoder("fruit", FRUIT)
decoder("fruit-bad", b'{"fruitID":"","name":null,"color":7,"recipes":[{"title":"t","description":"d",'
        b'"videoTutorial":"ftp://x"},{"title":"t","description":"\\ud800","videoTutorial":"http://"}]}',
        unknown=False)
decoder("probe", b'{"i8":-128,"i16":32767,"i32":-1,"i64":-9223372036854775808,"int":0,"u8":255,'
        b'"u16":0,"u32":4294967295,"u64":18446744073709551615,"uint":1,"double":1e308,'
        b'"float":3.4e38,"decimal":123.456e-2,"bool":true,"string":"\\u00e9\\t",'
        b'"url":"https://x.example/z?q=1","date":"2023-01-01T00:00:00Z","shade":"red",'
        b'"patch":null,"patchNumber":5,"map":{"a":1,"b":-2},"list":[1,null,2],"matrix":[[1.5],[]],'
        b'"children":[{"i8":1,"children":[{"shade":"blue"}]}],"shape":{"type":"circle","radius":2}}')
decoder("probe-polygon", b'{"shape":{"type":"polygon","points":[[1,2],[3,4]]},"patch":"x"}')
decoder("probe-pair", b'{"shape":{"type":"pair","first":[1,null,2],"second":3,"nested":{"type":"x"}}}')
decoder("probe-range", b'{"i8":128,"u8":-1,"int":1.5,"float":1e39,"decimal":1e300,"u64":-0}')
decoder("probe-legacy", b'{"int":"12","bool":"true","string":12,"u16":"65535","double":"1.5",'
        b'"date":"1672531205"}', legacy=True, dates=6)

# xml-reader: control byte = path | chunk << 2 | small limits << 4 | dto << 5 | unknown << 7
# paths: 0 [] (the root's children), 1 orders.order, 2 posts.row, 3 a.b.c
# chunks: 0 32 KiB, 1 one byte, 2 seven bytes, 3 4096; dtos: 0 orders, 1 posts, 2 tags, 3 fruits
def xml(name, document, path=0, chunk=0, small=False, dto=0, unknown=True):
    control = path | chunk << 2 | (0x10 if small else 0) | dto << 5 | (0x80 if unknown else 0)
    write("xml-reader", name, bytes([control]) + document)


XML_ORDER = (b'<order orderId="0000000001"><amount>4000269</amount><currency>EUR</currency>'
             b'<status>pending</status><createdAt>2023-01-01T00:00:03.922Z</createdAt>'
             b'<customer id="319"><name>Aiko Lima</name></customer><items><item><sku>SKU-97227</sku>'
             b'<qty>6</qty><priceMinor>416960</priceMinor></item><item><sku>SKU-90498</sku><qty>9</qty>'
             b'<priceMinor>15257</priceMinor></item></items></order>')
XML_ORDER2 = (b'<order orderId="0000000011">\n  <amount>1552094</amount><currency>GBP</currency>'
              b'<status>cancelled</status><createdAt>2023-01-01T00:06:19Z</createdAt>\n  '
              b'<customer id="7"><name>Zo\xc3\xab M\xc3\xbcller &amp; Co</name></customer>\n  '
              b'<items><item><sku>SKU-56958</sku><qty>6</qty><priceMinor>78297</priceMinor></item></items>'
              b'\n</order>')
POSTS = (b'\xef\xbb\xbf<?xml version="1.0" encoding="utf-8"?>\n<posts>\n'
         b'  <row Id="1" PostTypeId="1" AcceptedAnswerId="3" CreationDate="2021-03-03T08:15:00.120" Score="7" '
         b'ViewCount="120" Body="&lt;p&gt;My colony is &lt;em&gt;very&lt;/em&gt; loud.&lt;/p&gt;&#xA;" '
         b'OwnerUserId="1" LastActivityDate="2021-03-05T10:00:00.000" Title="Is a loud colony about to swarm?" '
         b'Tags="&lt;hives&gt;&lt;swarms&gt;" AnswerCount="2" CommentCount="3" FavoriteCount="1" '
         b'ContentLicense="CC BY-SA 4.0" />\n'
         b'  <row Id="2" PostTypeId="2" ParentId="1" CreationDate="2021-03-03T09:00:00.000" Score="-1" '
         b'Body="&lt;p&gt;Loud means queenless.&lt;/p&gt;&#xA;" OwnerDisplayName="user4" '
         b'LastActivityDate="2021-03-03T09:00:00.000" CommentCount="1" ContentLicense="CC BY-SA 4.0" />\n'
         b'</posts>\n')
TAGS = (b'<?xml version="1.0" encoding="utf-8"?>\n<tags>\n  <row Id="1" TagName="hives" Count="1" />\n'
        b'  <row Id="3" TagName="swarms" Count="2" ExcerptPostId="6" WikiPostId="7" />\n</tags>\n')

reset("xml-reader")
xml("orders-export", b'<?xml version="1.0"?>\n<orders>\n' + XML_ORDER + b'\n' + XML_ORDER2 + b'\n</orders>\n', path=1)
xml("orders-export-bytes", b'<orders>' + XML_ORDER + XML_ORDER2 + b'</orders>', path=1, chunk=1)
xml("orders-nil-cdata", b'<orders xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
    + XML_ORDER.replace(b'<name>Aiko Lima</name>', b'<name><![CDATA[Aiko <Lima>]]></name>')
    .replace(b'<currency>EUR</currency>', b'<currency xsi:nil="true"/>') + b'</orders>', path=1, chunk=2)
xml("posts-rows", POSTS, path=2, dto=1)
xml("posts-rows-4k", POSTS, path=2, chunk=3, dto=1)
xml("tags-rows", TAGS, dto=2)
xml("tags-dtd-default", b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE tags [\n'
    b'<!ATTLIST row Count CDATA "777" TagName CDATA "injected">\n]>\n<tags>\n  <row Id="1"/>\n</tags>\n', dto=2)
xml("orders-xsi-nil-default", b'<!DOCTYPE orders [\n<!ATTLIST order xsi:nil CDATA "true">\n]>\n'
    b'<orders xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' + XML_ORDER + b'</orders>', path=1)
xml("doctype-harmless", b'<!DOCTYPE orders SYSTEM "orders.dtd" [\n<!ELEMENT orders (order*)>\n'
    b'<!ATTLIST order orderId CDATA #REQUIRED note CDATA #IMPLIED>\n<!NOTATION gif SYSTEM "gif">\n'
    b'<!-- c --><?pi x?>\n]>\n<orders>' + XML_ORDER + b'</orders>', path=1, chunk=2)
xml("doctype-typed", b'<!DOCTYPE r [<!ATTLIST row id ID #REQUIRED kind (a|b) #IMPLIED>]><r><row id=" 1 "/></r>')
xml("entity", b'<!DOCTYPE r [<!ENTITY e "abc">]><r><row>&e;</row></r>')
xml("namespaces", b'<o:orders xmlns:o="urn:o" xmlns:c="urn:c"><o:order o:orderId="1"><c:customer c:id="9">'
    b'Ann</c:customer><o:items/></o:order></o:orders>', path=1, chunk=2)
xml("mixed-deep", b'<a>\r\n<b x="1">\r<c y="2">t<d/>u<e>v</e>w</c>\n<c/></b><b><c>&lt;&#233;&#x1F600;</c></b></a>', path=3)
xml("invalid-in-its-encoding", b'<?xml version="1.0" encoding="ISO-2022-JP"?>\n<r>\n<rec>a</rec>\n<rec>\xc1\xc1</rec>\n'
    b'<rec>c</rec>\n</r>\n')
xml("latin1", b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<r>\n<rec a="\xe9">x</rec>\n</r>\n', chunk=1)
xml("small-limits", b'<orders>\n<order a="1" b="2" c="3" d="4" e="5"/>\n<order>' + b'x' * 70 + b'</order>\n'
    b'<order><a><b><c><d><e>deep</e></d></c></b></a></order>\n<order>' + b'<i>1</i>' * 80 + b'</order>\n'
    b'<order id="ok"/>\n</orders>\n', path=1, small=True)
xml("small-limits-long-tag", b'<orders><order ' + b' '.join(b'a%d="%d"' % (i, i) for i in range(1200))
    + b'/><order/></orders>', path=1, small=True, chunk=3)
xml("malformed", b'<orders>\n<order id="1"/>\n<order id="2"></ordr>\n</orders>', path=1)
xml("cut-short", b'<orders><order id="1"/><order id="2"><qty>', path=1, chunk=2)

# gzip-input: the file's bytes as they are.
reset("gzip-input")
DOC = b'[{"a":1},{"a":2}]\n'


def gz(data, level=9, name=None, mtime=0):
    return gzip.compress(data, compresslevel=level, mtime=mtime)


def member(data, flags=0, extra=b"", name=b"", comment=b"", hcrc=False, level=6):
    header = b"\x1f\x8b\x08" + bytes([flags | (2 if hcrc else 0)]) + struct.pack("<I", 0) + b"\x00\x03"
    if flags & 4:
        header += struct.pack("<H", len(extra)) + extra
    if flags & 8:
        header += name + b"\x00"
    if flags & 16:
        header += comment + b"\x00"
    if hcrc:
        header += struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    body = compressor.compress(data) + compressor.flush()
    return header + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


write("gzip-input", "plain.json", DOC)
write("gzip-input", "one-member.gz", gz(DOC))
write("gzip-input", "stored.gz", gz(DOC, level=0))
write("gzip-input", "empty-member.gz", gz(b""))
write("gzip-input", "two-members.gz", gz(b'[{"a":1},') + gz(b'{"a":2}]'))
write("gzip-input", "member-then-empty.gz", gz(DOC) + gz(b""))
write("gzip-input", "header-fields.gz", member(DOC, flags=4 | 8 | 16, extra=b"AB\x02\x00xy", name=b"f.json",
                                              comment=b"c", hcrc=True))
write("gzip-input", "truncated.gz", gz(DOC * 20)[:-9])
write("gzip-input", "bad-crc.gz", gz(DOC)[:-8] + b"\x00\x00\x00\x00" + gz(DOC)[-4:])
write("gzip-input", "trailing-garbage.gz", gz(DOC) + b"garbage")
write("gzip-input", "trailing-zeros.gz", gz(DOC) + b"\x00" * 8)
write("gzip-input", "magic-only.gz", b"\x1f\x8b")
write("gzip-input", "zlib-not-gzip.z", zlib.compress(DOC))
write("gzip-input", "repetitive.gz", gz(b'{"k":"' + b"a" * 20000 + b'"}\n'))

# pipeline-spec
reset("pipeline-spec")
spec_seeds = {
    "minimal": b'{"dataset":"fruits","input":"in.json","database":"db.sqlite"}',
    "full": b'{"description":"d","dataset":"orders","input":"../SampleData/orders.json.gz","format":"json",'
            b'"recordPath":"data.orders","policy":"strict","database":"/tmp/o.sqlite","onConflict":"replace",'
            b'"report":"r.json","junit":"j.xml","rejects":"-"}',
    "policy-object": b'{"dataset":"orders","input":"-","format":"ndjson","database":"x","policy":{"preset":'
                     b'"lenient","maxRejects":20,"maxRejectRate":0.1,"unknownFields":"reject",'
                     b'"legacyScalars":true,"dates":["iso8601","epochSeconds","yyyy-MM-dd HH:mm:ss"]}}',
    "record-path-array": b'{"dataset":"d","input":"i","database":"b","recordPath":["a.b","","c"],'
                         b'"onConflict":"ignore"}',
    "unknown-key": b'{"dataset":"d","input":"i","database":"b","polcy":"strict"}',
    "wrong-type": b'{"dataset":"d","input":"i","database":"b","policy":{"preset":"lenient","maxRejects":"x"}}',
    "strict-legacy": b'{"dataset":"d","input":"i","database":"b","policy":{"preset":"strict",'
                     b'"legacyScalars":true,"dates":[]}}',
    "bad-rate": b'{"dataset":"d","input":"i","database":"b","policy":{"preset":"lenient","maxRejectRate":2,'
                b'"maxRejects":-1,"unknownFields":"maybe"}}',
    "ndjson-with-path": b'{"dataset":"d","input":"i","database":"b","format":"ndjson","recordPath":"x"}',
    "empty-values": b'{"dataset":"","input":"","database":"","format":"xml","onConflict":"merge"}',
    "duplicate-key": b'\xef\xbb\xbf{"dataset":"a","dataset":"b","input":"~/i","database":"../../../b"}',
    "not-an-object": b'["dataset"]',
}
for name, data in spec_seeds.items():
    write("pipeline-spec", name + ".json", data)

# csv-reader: control byte = dialect | small limits << 2 | unknown fields << 3 | UTF-16LE declared << 4
# dialects: 0 csv, 1 tsv, 2 `;` with empty null, 3 csv without a header (columns given)
reset("csv-reader")
DEVICES = (b'id,name,latitude,longitude\r\n'
           b'dev-0001,Pump station north,52.52,13.405\r\n'
           b'dev-0005,"Flow meter, canal east",40.7128,-74.006\r\n'
           b'dev-0006,"Rain gauge ""roof""\nsecond line",35.6762,139.6503\r\n')
csv_seeds = {
    "devices": (0, DEVICES),
    "devices-bom-small": (4, b"\xef\xbb\xbf" + DEVICES),
    "devices-unknown-nested": (8, b'id,name,latitude,longitude,site.code,site.name\ndev-1,a,1,2,7,x\n'),
    "tsv": (1, DEVICES.replace(b",", b"\t")),
    "semicolon-empty": (2, b'id;name;latitude;longitude\rdev-1;;1;\r"";x;"";2\r'),
    "no-header": (3, b'dev-1,Pump,1.5,2.5,9\ndev-2,"Valve",north,0,1\n'),
    "wrong-widths": (0, b'id,name\n1\n1,2,3\n,\n'),
    "stray-quotes": (0, b'id,name\n1,a"b\n"x"y,2\n"open\n'),
    "bad-header": (0, b'a,a.b,,"c\n1,2,3,4\n'),
    "bad-utf8": (0, b'id,name\n1,\xe9t\xc3\n2,\xed\xa0\x80\n'),
    "utf16le-bom-crlf": (0, b"\xff\xfe" + DEVICES.decode().replace("Pump", "P\U0001F600mp").encode("utf-16-le")),
    "utf16be-bom": (1, b"\xfe\xff" + DEVICES.replace(b",", b"\t").decode().encode("utf-16-be")),
    "utf16le-declared-malformed": (16, "id,name\n1,a".encode("utf-16-le") + b"\x00\xdc" + ",x\n2,b".encode("utf-16-le") + b"\x41"),
}
for name, (control, data) in csv_seeds.items():
    write("csv-reader", name + ".csv", bytes([control]) + data)
