//! The `.bir` lexer. Newlines are tokens: statements end at a newline or `;`.

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    /// A number as written (sign is a separate token).
    Number(String),
    Str(String),
    Punct(&'static str),
    Newline,
    Eof,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

const PUNCTS: [&str; 28] = [
    "==", "!=", "<=", ">=", "<<", ">>", "&&", "||", "=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "(",
    ")", "{", "}", ",", ":", "@", ";",
];

pub fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Number(n) => format!("number `{n}`"),
        Tok::Str(s) => format!("string {s:?}"),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Newline => "end of line".into(),
        Tok::Eof => "end of file".into(),
    }
}

/// Splits `src` into tokens with their positions, or reports the first
/// character that starts no token.
pub fn lex(src: &str) -> Result<Vec<(Tok, Pos)>, (Pos, String)> {
    let chars: Vec<char> = src.chars().collect();
    let mut toks = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line, col };
        let start = i;
        if c == '\n' {
            toks.push((Tok::Newline, pos));
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' || c == '.' && chars.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic())
        {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | '.' | '$' | '#')) {
                i += 1;
            }
            toks.push((Tok::Ident(chars[start..i].iter().collect()), pos));
        } else if c.is_ascii_digit() {
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < chars.len() && matches!(chars[i], 'e' | 'E') {
                let mut j = i + 1;
                if j < chars.len() && matches!(chars[j], '+' | '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            toks.push((Tok::Number(chars[start..i].iter().collect()), pos));
        } else if c == '"' {
            i += 1;
            let mut s = String::new();
            loop {
                match chars.get(i) {
                    None | Some('\n') => return Err((pos, "unterminated string".into())),
                    Some('"') => break,
                    Some('\\') => {
                        match chars.get(i + 1) {
                            Some('n') => s.push('\n'),
                            Some(&e @ ('"' | '\\')) => s.push(e),
                            _ => {
                                return Err((
                                    Pos {
                                        line,
                                        col: col + (i - start) as u32,
                                    },
                                    "unknown escape".into(),
                                ))
                            }
                        }
                        i += 2;
                    }
                    Some(&ch) => {
                        s.push(ch);
                        i += 1;
                    }
                }
            }
            i += 1;
            toks.push((Tok::Str(s), pos));
        } else {
            let rest: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            match PUNCTS.iter().find(|p| rest.starts_with(**p)) {
                Some(p) => {
                    i += p.len();
                    toks.push((Tok::Punct(p), pos));
                }
                None => return Err((pos, format!("unexpected character {c:?}"))),
            }
        }
        col += (i - start) as u32;
    }
    toks.push((Tok::Eof, Pos { line, col }));
    Ok(toks)
}
