@_spi(Internals) import SluiceCore

/// Tells the multi-byte legacy encodings of a CSV export apart (Big5, GB18030/GBK, Shift_JIS,
/// EUC-JP, EUC-KR), or says it cannot.
///
/// Two tests, over the bytes sniffed: the bytes must be valid in the encoding (iconv converts
/// them with no sequence it does not define), and, read in it, the text must look like text of
/// the encoding's language — the share of its non-ASCII characters that are among that
/// language's most common ones (kana for Japanese, the commonest Hangul syllables for Korean,
/// the commonest Han characters for Chinese and Japanese, CJK punctuation and full-width forms
/// for all). Text read in the wrong encoding is valid often enough (Big5 bytes are nearly all
/// valid GBK), but it reads as rare characters: a real export scores far above it. When two
/// encodings score alike, or too few characters were seen, nothing is guessed.
enum LegacyEncodingGuess {
  enum Language { case chinese, japanese, korean }

  /// The encodings tried, in the order a tie is listed, with the language each writes.
  static let candidates: [(name: String, language: Language)] = [
    ("big5", .chinese), ("gb18030", .chinese), ("shift_jis", .japanese), ("euc-jp", .japanese),
    ("euc-kr", .korean),
  ]

  /// The fewest non-ASCII characters a guess is made from.
  static let minimumCharacters = 10
  /// The least share of common characters a guess needs.
  static let minimumShare = 0.3

  /// What the bytes read as in each candidate encoding they are valid in.
  struct Reading {
    var name: String
    var characters: Int
    var common: Int
    var share: Double { characters == 0 ? 0 : Double(common) / Double(characters) }
  }

  enum Outcome {
    /// No multi-byte encoding reads the bytes, or none reads them as text of its language.
    case none
    /// One does, far better than any other.
    case found(Reading, runnerUp: Reading?)
    /// Several read them alike.
    case ambiguous([Reading])
    /// Too few characters were seen to tell: the encodings that read them.
    case tooFew([Reading])
  }

  /// The multi-byte encoding `prefix` is in (`isComplete`: the whole file; otherwise its last
  /// line, which the prefix may cut, is left out).
  static func guess(_ prefix: [UInt8], isComplete: Bool) -> Outcome {
    var bytes = prefix[...]
    if !isComplete, let lastBreak = bytes.lastIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
      bytes = bytes[...lastBreak]
    }
    var readings: [Reading] = []
    for (name, language) in candidates {
      guard let converter = CSVMultiByteConverter(name: name) else { continue }
      var text: [UInt8] = []
      let bad = bytes.withUnsafeBufferPointer { converter.utf8($0, into: &text) }
      guard bad == nil else { continue }
      var reading = Reading(name: name, characters: 0, common: 0)
      for scalar in String(decoding: text, as: UTF8.self).unicodeScalars where scalar.value >= 0x80 {
        reading.characters += 1
        if isCommon(scalar, in: language) { reading.common += 1 }
      }
      if reading.characters > 0 { readings.append(reading) }
    }
    let ranked = readings.sorted { $0.share > $1.share }
    guard let best = ranked.first, best.share >= minimumShare else { return .none }
    if best.characters < minimumCharacters { return .tooFew(ranked) }
    let close = ranked.filter { $0.share * 2 > best.share }
    if close.count > 1 { return .ambiguous(close) }
    return .found(best, runnerUp: ranked.dropFirst().first)
  }

  static func isCommon(_ scalar: Unicode.Scalar, in language: Language) -> Bool {
    let value = scalar.value
    // CJK punctuation (、。「」) and full-width forms (（）０-９Ａ-Ｚ), in every language.
    if (0x3000...0x303F).contains(value) || (0xFF01...0xFF5E).contains(value) { return true }
    switch language {
    case .chinese: return commonHan.contains(scalar)
    case .japanese: return (0x3041...0x30FF).contains(value) || commonHan.contains(scalar)
    case .korean: return commonHangul.contains(scalar)
    }
  }

  /// About 900 of the commonest Han characters of Chinese text, simplified and traditional, and
  /// of the names of places, units and statistics in public-sector tables (most are as common in
  /// Japanese).
  static let commonHan: Set<Unicode.Scalar> = Set(
    ("的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里用道行所然家种事成方多"
      + "经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实日军者意无力它与长把机十民第公此已工使情明性"
      + "知全三又关点正业外将两高间由问很最重并物手应战向头文体政美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次"
      + "度门任常先海通教儿原东声提立及比员解水名真论处走义各入几口认条平系气题活尔更别打女变四神总何电数安少报才结反受目太量再感建"
      + "务做接必场件计管期市直德资命山金指克许统区保至队形社便空决治展马科司五基眼书非则听白却界达光放强即像难且权思王象完设式色路"
      + "记南品住告类求据程北边死张该交规万取拉格望觉术领共确传师观清今切院让识候带导争运笑飞风步改收根干造言联持组每济车亲极林服快"
      + "办议往元英士证近失转夫令准布始怎存未远叫台单影具罗字爱击流备兵连调深商算质团集百需价花党华城石级整府离况亚请技际约示复病息"
      + "究线似官火断精满支视消越器容照须九增研写称企八功包片史委乎查轻易早曾除农找装广显阿李标谈吃图念六引历首医局突专费号尽另周较"
      + "注语仅考落青随选列武红响虽推势参希古众构房半节土投某案黑维革划敌致陈律足态护七兴派孩验责营星够章音跟志底站严巴例防族供效续"
      + "施留讲型料终答紧黄绝奇察母京段依批群项故按河米围江织害斗双境客纪采举杀攻父苏密低朝友诉止细愿千值仍男钱破网热助倒育属坐帝限"
      + "船脸职速刻乐否刚威毛状率甚独球般普怕弹校苦创假久错承印晚兰试股拿脑预谁益阳若哪微尼继送急血惊伤素药适波夜省初喜卫源食险待述"
      + "陆习置居劳财环排福纳欢雷警获模充负云停木游龙树疑层冷洲冲射略范竟句室异激汉村哈策演简卡罪判担州静退既衣您宗积余痛检差富灵协"
      + "角占配征修皮挥胜降阶审沉坚善妈刘读超免压银买皇养伊怀执副乱抗犯追帮宣佛岁航优怪香著田铁控税左右份穿艺背阵草脚概恶块顿敢守酒"
      + "岛托央户烈洋哥索胡款靠评版宝座释景顾弟登货互付伯慢欧换闻危忙核暗姐介坏讨丽良序升监临亮露永呼味野架域沙掉括舰鱼杂误湾吉减编"
      + "楚肯测败屋跑梦散温困剑渐封救贵枪缺楼县尚毫移娘朋画班智亦耳恩短掌恐遗固席松秘谢鲁遇康虑幸均销钟诗藏赶剧票损忽巨炮旧端探湖录"
      + "叶春乡附吸予礼港雨板庭妇归睛饭额含顺输摇招婚脱补谓督毒油疗旅泽材灭逐莫笔亡鲜词圣择寻厂睡博勒烟授诺伦岸奥唐卖俄炸载洛健堂旁"
      + "宫喝借君禁阴园谋宋避抓荣姑孙逃牙束跳顶玉镇雪午练迫爷篇肉嘴馆遍凡础洞卷坦牛宁纸诸训私庄祖丝翻暴森塔默握戏隐熟骨访弱蒙歌店鬼"
      + "软典欲萨伙遭盘爸扩盖弄雄稳忘亿刺拥徒姆杨齐赛趣曲刀床迎冰虚玩析窗醒妻透购替塞努休虎扬途侵刑绿兄迅套贸毕唯谷轮库迹尤竞街促延"
      + "震弃甲伟麻川申缓潜闪售灯针哲络抵朱埃抱鼓植纯夏忍页杰筑折郑贝尊吴秀混臣雅振染盛怒舞圆搞狂措姓残秋培迷诚宽宇猛摆梅毁伸摩盟末"
      + "乃悲拍丁赵口戶市區縣鄉鎮村里號數據總計統計類別項目單位萬億價額費稅產業營銷售資料機關團體醫療衛護學校區域範圍號碼電話傳真地址"
      + "這個們來為國說時會對還過發後裡動從應經現當開關將無點與長問進體們見學員場種樣兩機親華東車門電書頭語間當實際圖錢聲雙條報氣變處"
      + "紅綠藍黃歲類級職務議設計運輸區劃選舉錄觀質農廠營養歷歸屬轉換項標準測驗證續權財務銀簡臺灣臺北台中高雄桃園新竹苗栗彰化南投雲"
      + "嘉義屏東宜蘭花蓮澎湖金門連江基隆縣鄉鎮區里鄰戶籍男女合計人口密度面積平方公里件數率％元千百十零一二三四五六七八九〇年月日時分"
      + "都道府県郡町村丁目番地区役所札幌仙台横浜名古屋京都大阪神戸広島福岡那覇埼玉千葉東京神奈川静岡愛知兵庫沖縄北海島根山口徳島香川"
      + "愛媛高知佐賀長崎熊本大分宮崎鹿児富山石川福井梨長野岐阜三重滋賀奈良和歌鳥取岡青森岩手秋田形茨城栃木群馬新潟人口世帯数合計総数")
      .unicodeScalars.filter { $0.value >= 0x3400 })

  /// About 300 of the commonest Hangul syllables of Korean text and of public-sector tables.
  static let commonHangul: Set<Unicode.Scalar> = Set(
    ("이다의는에하고을가지로서한기도사대자리니어인나수아일시보국부정제여게주상들것전있적요해장성구원그으면만라할동과내학위생신연"
      + "경관용문회공개화소무비분방우미계세실모발물행중교저조년월금토천안특별광역북남강충청울산군읍번호명칭합총량액격코드별도민및"
      + "종류유형구분현황단위명칭주소전화지역업체기관시설인원수치율비율평균최대최소합계남자여자가구세대인구면적개수건수금액원천만억"
      + "서울부산대구인천광주대전울산세종경기강원충북충남전북전남경북경남제주특별시광역자치도시군구읍면동리로길번지호층"
      + "은를와과에서으로부터까지도만요죠네데게께한된될되는했하였했던있었없는않은같은위해통해대해의한을를이가")
      .unicodeScalars.filter { $0.value >= 0xAC00 && $0.value <= 0xD7A3 })
}
