# Flattens one JSON document into PATH=VALUE lines, one per scalar, for tests in a guest that
# has only busybox (no jq). PATH joins object keys and array indexes with dots; VALUE is the
# string without its quotes (\" \\ \/ decoded, \n \t \uXXXX kept as written) or the literal
# number / true / false / null. Empty objects and arrays print as {} and [].
#
#   {"a": {"b": [1, "x"]}, "c": []}   ->   a.b.0=1   a.b.1=x   c=[]
#
# Usage: awk -f jsonflat.awk FILE
BEGIN { RS = "\001" }
{ text = text $0 "\n" }

function path(upto,    p, k) {
  p = ""
  for (k = 1; k <= upto; k++) p = p (k > 1 ? "." : "") key[k]
  return p
}

function emit(p, v) { print p "=" v }

function value_starts() {  # a value begins in the current container
  if (depth > 0) empty[depth] = 0
}

END {
  n = length(text)
  i = 1
  depth = 0
  while (i <= n) {
    c = substr(text, i, 1)
    if (c == " " || c == "\t" || c == "\r" || c == "\n" || c == ":") { i++; continue }
    if (c == "{" || c == "[") {
      value_starts()
      depth++
      kind[depth] = c
      key[depth] = (c == "[") ? 0 : ""
      empty[depth] = 1
      want_key[depth] = (c == "{")
      i++
      continue
    }
    if (c == "}" || c == "]") {
      if (empty[depth]) emit(path(depth - 1), c == "}" ? "{}" : "[]")
      depth--
      i++
      continue
    }
    if (c == ",") {
      if (kind[depth] == "[") key[depth]++
      else want_key[depth] = 1
      i++
      continue
    }
    if (c == "\"") {
      s = ""
      i++
      while (i <= n) {
        c = substr(text, i, 1)
        if (c == "\\") {
          e = substr(text, i + 1, 1)
          if (e == "\"" || e == "\\" || e == "/") s = s e
          else s = s "\\" e
          i += 2
          continue
        }
        if (c == "\"") { i++; break }
        s = s c
        i++
      }
      if (depth > 0 && kind[depth] == "{" && want_key[depth]) {
        key[depth] = s
        want_key[depth] = 0
        empty[depth] = 0
      } else {
        value_starts()
        emit(path(depth), s)
      }
      continue
    }
    j = i
    while (j <= n) {
      c = substr(text, j, 1)
      if (c == "," || c == "}" || c == "]" || c == " " || c == "\t" || c == "\r" || c == "\n") break
      j++
    }
    value_starts()
    emit(path(depth), substr(text, i, j - i))
    i = j
  }
}
