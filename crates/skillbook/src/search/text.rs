//! Text to terms: the two tokenizations of skill search.
//!
//! - [`words`]: lower-case runs of letters and digits, nothing more (the plain BM25 baseline).
//!   Full-width forms are folded first (`ＰＤＦ` is `pdf`), and Chinese, Japanese and Korean,
//!   which are written without spaces between words (or with particles attached, as Korean
//!   is), are cut as Lucene's CJK analyzer cuts them: each run of such characters gives every
//!   pair of neighbours (`会议记录` → `会议`, `议记`, `记录`; a run of one character gives
//!   that character), and a run never joins a word in another script (`PDF에서` → `pdf`,
//!   `에서`). Single characters would match every text in the script on its particles.
//! - [`terms`]: the same words with accents folded, one-letter words and English stop words
//!   dropped, each reduced to its stem by [`stem`] (skillbook's ranking); the pairs of a CJK
//!   run are kept as they are.
//!
//! The stemmer is Porter's algorithm of 1980 ("An algorithm for suffix stripping"), as in his
//! reference implementation; it stems lower-case ASCII words and leaves any other word as it is.

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;

/// Lower-case runs of letters and digits, in order, with full-width forms folded and each run
/// of CJK characters cut into its neighbouring pairs (see the module).
pub(crate) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    let text: Cow<'_, str> = if text.is_ascii() {
        Cow::Borrowed(text)
    } else {
        // Compatibility forms, full-width letters among them, as their plain letters.
        Cow::Owned(text.nfkc().collect())
    };
    let mut found = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        let mut start = 0;
        let mut in_cjk = None;
        for (at, character) in run.char_indices() {
            let cjk = is_cjk(character);
            if let Some(was) = in_cjk
                && was != cjk
            {
                push_piece(&run[start..at], was, &mut found);
                start = at;
            }
            in_cjk = Some(cjk);
        }
        if let Some(cjk) = in_cjk {
            push_piece(&run[start..], cjk, &mut found);
        }
    }
    found.into_iter()
}

/// Adds one piece of a run: a word lower-cased, or a CJK run's pairs (or its one character).
fn push_piece(piece: &str, cjk: bool, found: &mut Vec<String>) {
    if !cjk {
        found.push(piece.to_lowercase());
        return;
    }
    let characters: Vec<char> = piece.chars().collect();
    if characters.len() == 1 {
        found.push(piece.to_owned());
    }
    found.extend(characters.windows(2).map(|pair| pair.iter().collect()));
}

/// Whether `character` is written without spaces between words: Han ideographs, kana, Hangul.
pub(crate) fn is_cjk(character: char) -> bool {
    matches!(u32::from(character),
        0x1100..=0x11FF // Hangul Jamo
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3130..=0x318F // Hangul compatibility Jamo
        | 0x31F0..=0x31FF // Katakana phonetic extensions
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xA960..=0xA97F // Hangul Jamo extended A
        | 0xAC00..=0xD7FF // Hangul syllables, Jamo extended B
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0xFF66..=0xFF9F // half-width Katakana
        | 0x20000..=0x3134F // CJK extensions B to G
    )
}

/// The search terms of `text`, in order, repeats kept: words with accents folded, stop words and
/// one-letter words dropped, stemmed; CJK pairs (and lone characters) as they are.
pub(crate) fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    words(text).filter_map(|word| {
        if word.chars().next().is_some_and(is_cjk) {
            // Folding would take kana's voicing marks and cut Hangul into letters.
            return Some(word);
        }
        let word = fold_accents(word);
        (word.chars().nth(1).is_some() && !is_stop_word(&word)).then(|| stem(&word))
    })
}

/// `word` without combining marks (`résumé` → `resume`).
pub(crate) fn fold_accents(word: String) -> String {
    if word.is_ascii() {
        return word;
    }
    word.nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect()
}

/// Words that say nothing about which skill fits: English function words and the filler of a
/// request ("can you please help me …").
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
    "did", "do", "does", "doing", "don", "done", "during", "each", "either", "else", "etc", "ever",
    "every", "few", "for", "from", "further", "get", "gets", "getting", "give", "go", "going",
    "got", "had", "has", "have", "having", "he", "help", "her", "here", "hers", "him", "his",
    "how", "however", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "like",
    "ll", "make", "me", "might", "more", "most", "much", "must", "my", "myself", "need", "needs",
    "no", "nor", "not", "now", "of", "off", "on", "once", "one", "only", "or", "other", "our",
    "ours", "out", "over", "own", "please", "re", "really", "s", "same", "she", "should", "skill",
    "skills", "so", "some", "such", "sure", "t", "than", "thank", "thanks", "that", "the", "their",
    "them", "then", "there", "these", "they", "thing", "things", "this", "those", "through", "to",
    "too", "under", "until", "up", "us", "use", "used", "uses", "using", "ve", "very", "via",
    "want", "wants", "was", "way", "we", "were", "what", "when", "where", "whether", "which",
    "while", "who", "whom", "why", "will", "with", "within", "without", "would", "yet", "you",
    "your", "yours", "yourself",
];

/// Whether `word` (lower case) is a stop word.
pub(crate) fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// Pairs of Chinese, Japanese or Korean characters that are grammar, not topic: particles,
/// endings and inflections (`から`, `해줘`), question and filler words (`怎么`, `帮我`). In a
/// catalog written mostly in English they are rare, so they would weigh like a topic's word, and
/// they match every skill written in the language: a query's such pairs are not searched for.
const GRAMMATICAL_PAIRS: &[&str] = &[
    "あり", "ある", "あれ", "いい", "いる", "かく", "かな", "から", "がい", "がで", "がな", "きな",
    "きる", "くだ", "けど", "けば", "けれ", "ここ", "こと", "これ", "さい", "させ", "しか", "した",
    "して", "しま", "する", "すれ", "ずつ", "せる", "そこ", "それ", "たい", "たの", "たら", "だけ",
    "ださ", "ちょ", "った", "って", "っと", "てい", "てた", "ても", "てる", "でき", "です", "では",
    "でも", "とか", "とに", "とは", "どう", "どこ", "どの", "ない", "なく", "など", "なの", "なる",
    "なん", "にか", "にし", "にな", "には", "のが", "ので", "のに", "のは", "のを", "ばい", "ほし",
    "ほど", "まし", "ます", "ませ", "まだ", "まで", "もう", "もの", "ょっ", "よう", "られ", "れた",
    "れば", "れる", "をし", "一下", "一个", "一些", "一個", "一直", "不能", "为什", "么做", "么写",
    "么办", "么弄", "么样", "了吗", "什么", "什麼", "他们", "他們", "但是", "你们", "你們", "們的",
    "可以", "哪些", "因为", "因為", "好吗", "如何", "如果", "就是", "已經", "已经", "帮忙", "帮我",
    "幫我", "应该", "怎么", "怎样", "怎麼", "想要", "應該", "我们", "我們", "我想", "我的", "或者",
    "所以", "时候", "是否", "時候", "有没", "没有", "為什", "然后", "的时", "的话", "給我", "给我",
    "能不", "請問", "请问", "还是", "还有", "这个", "这份", "這個", "還是", "還有", "那个", "里的",
    "麻烦", "麼辦", "그거", "까요", "까지", "나요", "는게", "는데", "는지", "니까", "니다", "돼요",
    "되는", "될까", "떻게", "려고", "부터", "세요", "수있", "습니", "싶어", "싶은", "아요", "어떻",
    "어요", "없는", "없어", "에게", "에는", "에도", "에서", "으로", "으면", "은데", "은지", "이거",
    "이랑", "인데", "입니", "있는", "있어", "있을", "좀더", "주세", "줘요", "하게", "하고", "하기",
    "하는", "하다", "하려", "하면", "한다", "할까", "할수", "합니", "해서", "해야", "해요", "해주",
    "해줘", "했는", "했어",
];

/// Whether `term` is one of the [`GRAMMATICAL_PAIRS`].
pub(crate) fn is_grammatical_pair(term: &str) -> bool {
    GRAMMATICAL_PAIRS.binary_search(&term).is_ok()
}

/// Words longer than this are not stemmed (no English word is; it bounds the work on junk).
const MAX_STEMMED_LENGTH: usize = 64;

/// The Porter stem of a lower-case word; words that are not lower-case ASCII letters, words of
/// two letters or fewer and words longer than 64 letters are returned unchanged.
pub(crate) fn stem(word: &str) -> String {
    if word.len() <= 2
        || word.len() > MAX_STEMMED_LENGTH
        || !word.bytes().all(|byte| byte.is_ascii_lowercase())
    {
        return word.to_owned();
    }
    let mut stemmer = Porter {
        word: word.as_bytes().to_vec(),
    };
    stemmer.step_1ab();
    stemmer.step_1c();
    stemmer.step_2();
    stemmer.step_3();
    stemmer.step_4();
    stemmer.step_5();
    // Only ASCII letters were written, so the bytes are UTF-8.
    String::from_utf8(stemmer.word).unwrap_or_else(|_| word.to_owned())
}

/// Porter's algorithm over a word of lower-case ASCII letters. `end` arguments are exclusive:
/// `measure(end)` looks at `word[..end]`, the stem left when a suffix is taken off.
struct Porter {
    word: Vec<u8>,
}

/// Suffix rewrites of step 2, tried in order; the first suffix the word ends with decides.
const STEP_2: &[(&str, &str)] = &[
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("logi", "log"),
];

/// Suffix rewrites of step 3.
const STEP_3: &[(&str, &str)] = &[
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
];

/// Suffixes step 4 removes from a stem of measure above one.
const STEP_4: &[&str] = &[
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou",
    "ism", "ate", "iti", "ous", "ive", "ize",
];

impl Porter {
    fn is_consonant(&self, index: usize) -> bool {
        match self.word[index] {
            b'a' | b'e' | b'i' | b'o' | b'u' => false,
            b'y' => index == 0 || !self.is_consonant(index - 1),
            _ => true,
        }
    }

    /// The number of vowel-consonant sequences in `word[..end]` (Porter's m).
    fn measure(&self, end: usize) -> usize {
        let mut count = 0;
        let mut index = 0;
        while index < end && self.is_consonant(index) {
            index += 1;
        }
        loop {
            while index < end && !self.is_consonant(index) {
                index += 1;
            }
            if index >= end {
                return count;
            }
            while index < end && self.is_consonant(index) {
                index += 1;
            }
            count += 1;
        }
    }

    fn has_vowel(&self, end: usize) -> bool {
        (0..end).any(|index| !self.is_consonant(index))
    }

    /// Whether `word[..end]` ends in a double consonant.
    fn ends_double_consonant(&self, end: usize) -> bool {
        end >= 2 && self.word[end - 1] == self.word[end - 2] && self.is_consonant(end - 1)
    }

    /// Whether `word[..end]` ends consonant-vowel-consonant, the last not `w`, `x` or `y`.
    fn ends_cvc(&self, end: usize) -> bool {
        end >= 3
            && self.is_consonant(end - 1)
            && !self.is_consonant(end - 2)
            && self.is_consonant(end - 3)
            && !matches!(self.word[end - 1], b'w' | b'x' | b'y')
    }

    /// The length of the stem left when `suffix` is taken off, if the word ends with it.
    fn stem_without(&self, suffix: &str) -> Option<usize> {
        self.word
            .ends_with(suffix.as_bytes())
            .then(|| self.word.len() - suffix.len())
    }

    fn replace_from(&mut self, stem_end: usize, replacement: &str) {
        self.word.truncate(stem_end);
        self.word.extend_from_slice(replacement.as_bytes());
    }

    /// Plurals and past participles.
    fn step_1ab(&mut self) {
        if let Some(end) = self.stem_without("sses") {
            self.replace_from(end, "ss");
        } else if let Some(end) = self.stem_without("ies") {
            self.replace_from(end, "i");
        } else if let Some(end) = self.stem_without("s")
            && !self.word.ends_with(b"ss")
        {
            self.word.truncate(end);
        }
        if let Some(end) = self.stem_without("eed") {
            if self.measure(end) > 0 {
                self.replace_from(end, "ee");
            }
            return;
        }
        let Some(end) = self
            .stem_without("ed")
            .or_else(|| self.stem_without("ing"))
            .filter(|&end| self.has_vowel(end))
        else {
            return;
        };
        self.word.truncate(end);
        if self.word.ends_with(b"at") || self.word.ends_with(b"bl") || self.word.ends_with(b"iz") {
            self.word.push(b'e');
        } else if self.ends_double_consonant(end)
            && !matches!(self.word[end - 1], b'l' | b's' | b'z')
        {
            self.word.pop();
        } else if self.measure(end) == 1 && self.ends_cvc(end) {
            self.word.push(b'e');
        }
    }

    /// A final `y` after a vowel in the stem becomes `i`.
    fn step_1c(&mut self) {
        if let Some(end) = self.stem_without("y")
            && self.has_vowel(end)
        {
            self.word[end] = b'i';
        }
    }

    fn rewrite(&mut self, rules: &[(&str, &str)], least_measure: usize) {
        if let Some((end, replacement)) = rules
            .iter()
            .find_map(|(suffix, replacement)| Some((self.stem_without(suffix)?, *replacement)))
            && self.measure(end) >= least_measure
        {
            self.replace_from(end, replacement);
        }
    }

    fn step_2(&mut self) {
        self.rewrite(STEP_2, 1);
    }

    fn step_3(&mut self) {
        self.rewrite(STEP_3, 1);
    }

    fn step_4(&mut self) {
        let Some((suffix, end)) = STEP_4
            .iter()
            .find_map(|suffix| Some((*suffix, self.stem_without(suffix)?)))
        else {
            return;
        };
        let keeps_ion = suffix == "ion" && (end == 0 || !matches!(self.word[end - 1], b's' | b't'));
        if !keeps_ion && self.measure(end) > 1 {
            self.word.truncate(end);
        }
    }

    fn step_5(&mut self) {
        if let Some(end) = self.stem_without("e") {
            let measure = self.measure(end);
            if measure > 1 || (measure == 1 && !self.ends_cvc(end)) {
                self.word.truncate(end);
            }
        }
        let length = self.word.len();
        if self.word.ends_with(b"l")
            && self.ends_double_consonant(length)
            && self.measure(length) > 1
        {
            self.word.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(GRAMMATICAL_PAIRS.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(
            GRAMMATICAL_PAIRS
                .iter()
                .all(|pair| pair.chars().count() == 2)
        );
    }

    #[test]
    fn porter_stems_as_the_reference_does() {
        // Pairs from Porter's published vocabulary and output lists.
        let pairs = [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "ti"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("hissing", "hiss"),
            ("filing", "file"),
            ("happy", "happi"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("rational", "ration"),
            ("digitizer", "digit"),
            ("operator", "oper"),
            ("feudalism", "feudal"),
            ("decisiveness", "decis"),
            ("hopefulness", "hope"),
            ("formality", "formal"),
            ("sensitivity", "sensit"),
            ("triplicate", "triplic"),
            ("electrical", "electr"),
            ("revival", "reviv"),
            ("allowance", "allow"),
            ("adjustment", "adjust"),
            ("adoption", "adopt"),
            ("controlling", "control"),
            ("generalizations", "gener"),
            ("oscillators", "oscil"),
        ];
        for (word, expected) in pairs {
            assert_eq!(stem(word), expected, "{word}");
        }
    }

    #[test]
    fn forms_of_one_word_share_a_stem() {
        for group in [
            ["meeting", "meetings", "meet"],
            ["schedule", "scheduled", "scheduling"],
            ["automate", "automation", "automating"],
            ["spreadsheet", "spreadsheets", "spreadsheet"],
            ["invoice", "invoices", "invoicing"],
        ] {
            let stems: Vec<String> = group.iter().map(|word| stem(word)).collect();
            assert!(stems.windows(2).all(|pair| pair[0] == pair[1]), "{stems:?}");
        }
    }

    #[test]
    fn terms_drop_stop_words_and_fold_accents() {
        let found: Vec<String> = terms("Can you help me fix my Résumé's PDFs?").collect();
        assert_eq!(found, ["fix", "resum", "pdf"]);
        let plain: Vec<String> = words("Zoom-Automation: v2.0").collect();
        assert_eq!(plain, ["zoom", "automation", "v2", "0"]);
    }

    #[test]
    fn cjk_runs_give_their_pairs_and_never_join_another_script() {
        let chinese: Vec<String> = words("整理会议记录").collect();
        assert_eq!(chinese, ["整理", "理会", "会议", "议记", "记录"]);
        let korean: Vec<String> = terms("이 PDF에서 표를 추출해줘").collect();
        assert_eq!(
            korean,
            ["이", "pdf", "에서", "표를", "추출", "출해", "해줘"]
        );
        // Full-width letters are plain letters; kana keep their voicing marks.
        let japanese: Vec<String> = terms("ＰＤＦのデータ").collect();
        assert_eq!(japanese, ["pdf", "のデ", "デー", "ータ"]);
    }

    #[test]
    fn words_that_are_not_ascii_letters_are_kept() {
        assert_eq!(stem("x86"), "x86");
        assert_eq!(stem("straße"), "straße");
        assert_eq!(stem("is"), "is");
        let long = "y".repeat(100_000);
        assert_eq!(stem(&long), long);
    }
}
