// Command openapi-docs writes the descriptions and OpenAPI annotations of the embedded field
// schema's types (src/api/schema/k8s-v1-schema.json) from the Go sources of k8s.io/api and
// k8s.io/apimachinery, as kube-openapi's openapi-gen derives them from the same sources:
//
//	go run tools/openapi-docs/main.go -gopath DIR -schema FILE -seeds DIR -out FILE
//
// (scripts/openapi-docs runs it with the Go and GOPATH scripts/fetch-go-clients unpacks.)
//
// For every definition of the schema it reads the Go type's doc comment and each field's, and
// writes, keyed by the definition name and the field's JSON name:
//   - description: the comment as openapi-gen turns it into one (lines joined, paragraphs kept,
//     `+marker` and TODO lines dropped, nothing after `---`), with an enum type's "Possible enum
//     values" appended;
//   - enum: the values of a `+enum` string type;
//   - default: a `+default=` marker, else the zero value openapi-gen enforces (a struct held by
//     value {}, a scalar without omitempty its zero);
//   - x-kubernetes-list-type / -list-map-keys / -map-type / -patch-strategy / -patch-merge-key
//     from the field's markers, x-kubernetes-map-type of a type from `+structType`;
//   - required: the fields openapi-gen lists (no omitempty and no `+optional`), in field order;
//   - definition: for fields of the scalar wrapper types (Time, MicroTime, Quantity,
//     IntOrString, FieldsV1, RawExtension), the definition they refer to, whose own description
//     is written too.
//
// The schema's structure (types, formats, lists, maps) stays in k8s-v1-schema.json: this file
// only adds what a reader of the OpenAPI documents needs. Fields and types the schema marks
// "proposed" are not upstream: their comments come from the Go snippets in the seeds
// (../shared/seeds), and the pod-level pid limit, which is a resource name rather than a field,
// gets the seed's sentences appended to PodSpec.resources.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The Go types that are scalars in JSON but definitions of their own in the OpenAPI documents.
var wrapperDefinitions = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "io.k8s.apimachinery.pkg.api.resource.Quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":    "io.k8s.apimachinery.pkg.runtime.RawExtension",
	// Not a field's type: the PATCH operations' request body.
	"k8s.io/apimachinery/pkg/apis/meta/v1.Patch": "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
}

// Types whose JSON form is written by their own marshaller: openapi-gen enforces no default for
// them (their zero value marshals as null).
var customUnmarshalling = map[string]bool{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   true,
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   true,
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": true,
	"k8s.io/apimachinery/pkg/runtime.RawExtension":    true,
}

// The seed sentences that describe the pod-level pid limit (seed 001), appended to the
// description of PodSpec.resources, where `spec.resources.limits.pid` is set.
var pidLimitSentences = []string{
	"This allows individual Pods to specify their own PID limits using spec.resources.limits.pid in the Pod specification.",
	"The effective limit is the lower of the Pod-specified value and the node’s podPidsLimit.",
}

type goType struct {
	pkg     *goPackage
	name    string
	spec    *ast.TypeSpec
	comment []string
}

type goPackage struct {
	path    string
	types   map[string]*goType
	imports map[string]string // per file would be exact; the packages read use one alias each
	consts  map[string][]enumValue
}

type enumValue struct {
	name, value, comment string
}

type loader struct {
	gopath   string
	packages map[string]*goPackage
}

func (l *loader) load(path string) (*goPackage, error) {
	if p, ok := l.packages[path]; ok {
		return p, nil
	}
	dir := filepath.Join(l.gopath, "src", path)
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	p := &goPackage{path: path, types: map[string]*goType{}, imports: map[string]string{},
		consts: map[string][]enumValue{}}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			addFile(p, f)
		}
	}
	l.packages[path] = p
	return p, nil
}

// addFile records a parsed file's types, typed string constants and import aliases.
func addFile(p *goPackage, f *ast.File) {
	for _, imp := range f.Imports {
		ipath, _ := strconv.Unquote(imp.Path.Value)
		alias := filepath.Base(ipath)
		if imp.Name != nil {
			alias = imp.Name.Name
		}
		p.imports[alias] = ipath
	}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				doc := s.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				p.types[s.Name.Name] = &goType{pkg: p, name: s.Name.Name, spec: s, comment: commentLines(doc)}
			case *ast.ValueSpec:
				if gd.Tok != token.CONST || s.Type == nil || len(s.Values) != len(s.Names) {
					continue
				}
				typ, ok := s.Type.(*ast.Ident)
				if !ok {
					continue
				}
				doc := s.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				for i, name := range s.Names {
					lit, ok := s.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					p.consts[typ.Name] = append(p.consts[typ.Name],
						enumValue{name: name.Name, value: v, comment: strings.Join(commentLines(doc), " ")})
				}
			}
		}
	}
}

// commentLines are a comment's lines as gengo hands them to openapi-gen: the text without the
// comment markers, split at newlines.
func commentLines(g *ast.CommentGroup) []string {
	if g == nil {
		return nil
	}
	text := strings.TrimSuffix(g.Text(), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// description joins comment lines as openapi-gen's generateDescription does.
func description(lines []string) string {
	var b bytes.Buffer
	dropLast := func() {
		if b.Len() > 0 {
			b.Truncate(b.Len() - 1)
		}
	}
	for _, line := range lines {
		if line == "---" {
			break
		}
		line = strings.TrimRight(line, " ")
		leading := strings.TrimLeft(line, " ")
		switch {
		case line == "":
			dropLast()
			b.WriteString("\n\n")
		case strings.HasPrefix(leading, "TODO"), strings.HasPrefix(leading, "+"):
		case strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t"):
			dropLast()
			b.WriteString("\n" + line + "\n")
		default:
			b.WriteString(line + " ")
		}
	}
	return strings.TrimSpace(b.String())
}

// markers are the `+name=value` lines of a comment, every value of a repeated name in order.
func markers(lines []string) map[string][]string {
	out := map[string][]string{}
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "+") {
			continue
		}
		name, value, _ := strings.Cut(line[1:], "=")
		out[name] = append(out[name], value)
	}
	return out
}

var whitespace = regexp.MustCompile(`\s+`)

// enumOf is the enum type a field's Go type names (through one pointer), if it is one: a string
// type marked +enum, with its constants.
func (l *loader) enumOf(p *goPackage, expr ast.Expr) []enumValue {
	if star, ok := expr.(*ast.StarExpr); ok {
		expr = star.X
	}
	t, err := l.resolve(p, expr)
	if err != nil || t == nil {
		return nil
	}
	if ident, ok := t.spec.Type.(*ast.Ident); !ok || ident.Name != "string" {
		return nil
	}
	if _, ok := markers(t.comment)["enum"]; !ok {
		return nil
	}
	return t.pkg.consts[t.name]
}

// resolve finds the named type an identifier or selector refers to (nil for builtins).
func (l *loader) resolve(p *goPackage, expr ast.Expr) (*goType, error) {
	switch e := expr.(type) {
	case *ast.Ident:
		return p.types[e.Name], nil
	case *ast.SelectorExpr:
		pkgIdent, ok := e.X.(*ast.Ident)
		if !ok {
			return nil, nil
		}
		path, ok := p.imports[pkgIdent.Name]
		if !ok {
			return nil, fmt.Errorf("%s: unknown import %s", p.path, pkgIdent.Name)
		}
		q, err := l.load(path)
		if err != nil {
			return nil, err
		}
		return q.types[e.Sel.Name], nil
	}
	return nil, nil
}

func qualifiedName(t *goType) string { return t.pkg.path + "." + t.name }

// definitionPackage maps io.k8s.api.core.v1.Pod to (k8s.io/api/core/v1, Pod).
func definitionPackage(def string) (string, string) {
	i := strings.LastIndex(def, ".")
	parts := strings.Split(strings.TrimPrefix(def[:i], "io.k8s."), ".")
	return "k8s.io/" + strings.Join(parts, "/"), def[i+1:]
}

type field struct {
	json      string
	omitEmpty bool
	expr      ast.Expr
	comment   []string
	pkg       *goPackage
}

// fields lists a struct's JSON fields in order, flattening inline embedded structs.
func (l *loader) fields(t *goType) ([]field, error) {
	st, ok := t.spec.Type.(*ast.StructType)
	if !ok {
		return nil, nil
	}
	var out []field
	for _, f := range st.Fields.List {
		tag := ""
		if f.Tag != nil {
			raw, _ := strconv.Unquote(f.Tag.Value)
			tag = reflect.StructTag(raw).Get("json")
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if len(f.Names) == 0 && name == "" {
			inner, err := l.resolve(t.pkg, f.Type)
			if err != nil || inner == nil {
				return nil, fmt.Errorf("%s: inline field %v: %v", t.name, f.Type, err)
			}
			sub, err := l.fields(inner)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
			continue
		}
		if name == "" {
			name = f.Names[0].Name
			if t.pkg.path == "seeds" {
				name = seedJSONName(f)
			}
		}
		omit := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		out = append(out, field{json: name, omitEmpty: omit, expr: f.Type, comment: commentLines(f.Doc), pkg: t.pkg})
	}
	return out, nil
}

var zeroValues = map[string]any{"string": "", "bool": false, "int": 0, "int32": 0, "int64": 0,
	"uint64": 0, "float64": 0, "byte": 0}

// enforcedDefault is the default openapi-gen writes when no +default marker says one.
func (l *loader) enforcedDefault(p *goPackage, expr ast.Expr, omitEmpty bool) any {
	switch e := expr.(type) {
	case *ast.StarExpr, *ast.ArrayType, *ast.MapType, *ast.InterfaceType:
		return nil
	case *ast.Ident:
		if z, ok := zeroValues[e.Name]; ok {
			if omitEmpty {
				return nil
			}
			return z
		}
	}
	t, err := l.resolve(p, expr)
	if err != nil || t == nil {
		return nil
	}
	if customUnmarshalling[qualifiedName(t)] {
		return nil
	}
	switch u := t.spec.Type.(type) {
	case *ast.StructType:
		return map[string]any{}
	default:
		return l.enforcedDefault(t.pkg, u, omitEmpty)
	}
}

var extensionMarkers = []struct{ marker, name string }{
	{"listType", "x-kubernetes-list-type"},
	{"listMapKey", "x-kubernetes-list-map-keys"},
	{"mapType", "x-kubernetes-map-type"},
	{"patchStrategy", "x-kubernetes-patch-strategy"},
	{"patchMergeKey", "x-kubernetes-patch-merge-key"},
}

func (l *loader) property(f field) (map[string]any, error) {
	prop := map[string]any{}
	lines := f.comment
	if values := l.enumOf(f.pkg, f.expr); len(values) > 0 {
		var enumLines []string
		var enum []string
		for _, v := range values {
			c := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v.comment), v.name))
			enumLines = append(enumLines, fmt.Sprintf(" - `%q` %s", v.value, whitespace.ReplaceAllString(c, " ")))
			enum = append(enum, v.value)
		}
		sort.Strings(enumLines)
		sort.Strings(enum)
		lines = append(append(append([]string{}, lines...), "", "Possible enum values:"), enumLines...)
		prop["enum"] = enum
	}
	if d := description(lines); d != "" {
		prop["description"] = d
	}
	m := markers(f.comment)
	for _, ext := range extensionMarkers {
		values, ok := m[ext.marker]
		if !ok {
			continue
		}
		if ext.marker == "listMapKey" {
			prop[ext.name] = values
		} else {
			prop[ext.name] = values[0]
		}
	}
	if d, ok := m["default"]; ok {
		var v any
		if ref, ok := strings.CutPrefix(d[0], "ref("); ok {
			// +default=ref(Const): the constant's value.
			name := strings.TrimSuffix(ref, ")")
			found := false
			for _, values := range f.pkg.consts {
				for _, c := range values {
					if c.name == name {
						v, found = c.value, true
					}
				}
			}
			if !found {
				return nil, fmt.Errorf("field %s: +default=%s: no such constant", f.json, d[0])
			}
		} else if err := json.Unmarshal([]byte(d[0]), &v); err != nil {
			return nil, fmt.Errorf("field %s: +default=%s: %w", f.json, d[0], err)
		}
		prop["default"] = v
	} else if v := l.enforcedDefault(f.pkg, f.expr, f.omitEmpty); v != nil {
		prop["default"] = v
	}
	expr := f.expr
	if star, ok := expr.(*ast.StarExpr); ok {
		expr = star.X
	}
	if t, err := l.resolve(f.pkg, expr); err == nil && t != nil {
		if def, ok := wrapperDefinitions[qualifiedName(t)]; ok {
			prop["definition"] = def
		}
	}
	return prop, nil
}

func (l *loader) definition(t *goType) (map[string]any, error) {
	def := map[string]any{}
	if d := description(t.comment); d != "" {
		def["description"] = d
	}
	if v, ok := markers(t.comment)["structType"]; ok {
		def["x-kubernetes-map-type"] = v[0]
	}
	fields, err := l.fields(t)
	if err != nil {
		return nil, err
	}
	props := map[string]any{}
	var required []string
	for _, f := range fields {
		p, err := l.property(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.name, err)
		}
		props[f.json] = p
		if _, optional := markers(f.comment)["optional"]; !f.omitEmpty && !optional {
			required = append(required, f.json)
		}
	}
	if len(props) > 0 {
		def["properties"] = props
	}
	if len(required) > 0 {
		def["required"] = required
	}
	return def, nil
}

// seedPackage reads the Go declarations of the seeds' API sections (`type X struct { ... }`
// blocks, with the seeds' elisions dropped) as one package, so their comments are read as the
// upstream ones are.
func seedPackage(dir string) (*goPackage, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	var src strings.Builder
	src.WriteString("package v1\n")
	start := regexp.MustCompile(`^\s*type (\w+) (struct \{|string)\s*$`)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(data), "\n")
		for i := 0; i < len(lines); i++ {
			m := start.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			// The comment block right above the declaration.
			j := i
			for j > 0 && strings.HasPrefix(strings.TrimSpace(lines[j-1]), "//") {
				j--
			}
			block := append([]string{}, lines[j:i+1]...)
			if m[2] == "struct {" {
				for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "}"; i++ {
					line := strings.TrimSpace(lines[i])
					if strings.Trim(line, ".") == "" && line != "" {
						continue // the seeds' "......" elisions
					}
					if strings.HasPrefix(line, "message ") || strings.HasPrefix(line, "string ") {
						break // a protobuf message, not Go
					}
					block = append(block, lines[i])
				}
				block = append(block, "}")
			}
			// CRI's Go types (pointers to generated messages) are not the API's: keep only
			// declarations that parse alone.
			one := "package v1\n" + strings.Join(block, "\n") + "\n"
			if _, err := parser.ParseFile(token.NewFileSet(), "", one, 0); err != nil {
				continue
			}
			src.WriteString(strings.Join(block, "\n") + "\n")
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), "seeds.go", src.String(), parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("the seeds' Go declarations: %w", err)
	}
	p := &goPackage{path: "seeds", types: map[string]*goType{}, imports: map[string]string{},
		consts: map[string][]enumValue{}}
	// A type declared twice (the KEP's external and internal types) keeps its first, the
	// external one with the JSON tags.
	for _, decl := range f.Decls {
		gd := decl.(*ast.GenDecl)
		for _, spec := range gd.Specs {
			s, ok := spec.(*ast.TypeSpec)
			if !ok {
				continue
			}
			if prev, ok := p.types[s.Name.Name]; ok {
				p.types[s.Name.Name] = mergeSeedStructs(prev, s)
				continue
			}
			p.types[s.Name.Name] = &goType{pkg: p, name: s.Name.Name, spec: s, comment: commentLines(gd.Doc)}
		}
	}
	return p, nil
}

// mergeSeedStructs appends to the first declaration the fields the second adds (the seeds each
// show SecurityContext with the one field they propose).
func mergeSeedStructs(prev *goType, s *ast.TypeSpec) *goType {
	a, ok1 := prev.spec.Type.(*ast.StructType)
	b, ok2 := s.Type.(*ast.StructType)
	if ok1 && ok2 {
		a.Fields.List = append(a.Fields.List, b.Fields.List...)
	}
	return prev
}

// seedJSONName is a seed field's JSON name: its tag's, else the Go name with a lower-case
// first letter, as the API's conventions name fields.
func seedJSONName(f *ast.Field) string {
	if f.Tag != nil {
		raw, _ := strconv.Unquote(f.Tag.Value)
		if name, _, _ := strings.Cut(reflect.StructTag(raw).Get("json"), ","); name != "" {
			return name
		}
	}
	n := f.Names[0].Name
	return strings.ToLower(n[:1]) + n[1:]
}

// seedProperty is the property of a proposed field from the seed's declaration.
func (l *loader) seedProperty(seeds *goPackage, typeName, jsonName string) (map[string]any, error) {
	t, ok := seeds.types[typeName]
	if !ok {
		return nil, fmt.Errorf("no seed declares %s", typeName)
	}
	st := t.spec.Type.(*ast.StructType)
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 || seedJSONName(f) != jsonName {
			continue
		}
		tag := ""
		if f.Tag != nil {
			raw, _ := strconv.Unquote(f.Tag.Value)
			tag = reflect.StructTag(raw).Get("json")
		}
		_, opts, _ := strings.Cut(tag, ",")
		_, optional := markers(commentLines(f.Doc))["optional"]
		omit := optional || strings.Contains(opts, "omitempty")
		return l.property(field{json: jsonName, omitEmpty: omit, expr: f.Type, comment: commentLines(f.Doc), pkg: seeds})
	}
	return nil, fmt.Errorf("no seed declares %s.%s", typeName, jsonName)
}

type schemaFile struct {
	Types map[string]struct {
		Proposed string `json:"proposed"`
		Fields   map[string]struct {
			Proposed string `json:"proposed"`
		} `json:"fields"`
	} `json:"types"`
}

func run() error {
	gopath := flag.String("gopath", os.Getenv("GOPATH"), "the GOPATH holding k8s.io/api and k8s.io/apimachinery")
	schemaPath := flag.String("schema", "src/api/schema/k8s-v1-schema.json", "the embedded field schema")
	seedsDir := flag.String("seeds", "../shared/seeds", "the seeds' directory")
	out := flag.String("out", "src/api/schema/k8s-v1-openapi-docs.json", "the file to write")
	source := flag.String("source", "", "what the sources are (written to the file's \"source\")")
	flag.Parse()

	data, err := os.ReadFile(*schemaPath)
	if err != nil {
		return err
	}
	var schema schemaFile
	if err := json.Unmarshal(data, &schema); err != nil {
		return fmt.Errorf("%s: %w", *schemaPath, err)
	}
	seeds, err := seedPackage(*seedsDir)
	if err != nil {
		return err
	}
	l := &loader{gopath: *gopath, packages: map[string]*goPackage{}}
	defs := map[string]any{}
	names := make([]string, 0, len(schema.Types))
	for name := range schema.Types {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		st := schema.Types[name]
		pkgPath, typeName := definitionPackage(name)
		var def map[string]any
		if st.Proposed != "" {
			t, ok := seeds.types[typeName]
			if !ok {
				return fmt.Errorf("%s is proposed by %s but no seed declares it", name, st.Proposed)
			}
			if def, err = l.definition(t); err != nil {
				return err
			}
		} else {
			if _, statErr := os.Stat(filepath.Join(l.gopath, "src", pkgPath)); errors.Is(statErr, fs.ErrNotExist) {
				// A whole package the schema reaches may be newer than the Go sources too
				// (batch/v1's Job reaches scheduling/v1alpha3): the same, for its types.
				fmt.Fprintf(os.Stderr, "openapi-docs: %s: no package %s; left without a description\n", name, pkgPath)
				continue
			}
			p, err := l.load(pkgPath)
			if err != nil {
				return err
			}
			t, ok := p.types[typeName]
			if !ok {
				// The schema is generated from a newer kubernetes/api commit than the Go
				// sources may be: such a type is served without words, and said so here.
				fmt.Fprintf(os.Stderr, "openapi-docs: %s: no type %s in %s; left without a description\n", name, typeName, pkgPath)
				continue
			}
			if def, err = l.definition(t); err != nil {
				return err
			}
			props, _ := def["properties"].(map[string]any)
			for fieldName, f := range st.Fields {
				if f.Proposed == "" {
					continue
				}
				p, err := l.seedProperty(seeds, typeName, fieldName)
				if err != nil {
					return err
				}
				props[fieldName] = p
			}
		}
		defs[name] = def
	}
	// The pod pid limit is a resource name, not a field: its words go where it is set.
	podSpec := defs["io.k8s.api.core.v1.PodSpec"].(map[string]any)["properties"].(map[string]any)["resources"].(map[string]any)
	seed001, err := filepath.Glob(filepath.Join(*seedsDir, "001_*.txt"))
	if err != nil || len(seed001) != 1 {
		return fmt.Errorf("seed 001 not found in %s", *seedsDir)
	}
	text, err := os.ReadFile(seed001[0])
	if err != nil {
		return err
	}
	for _, s := range pidLimitSentences {
		if !strings.Contains(string(text), s) {
			return fmt.Errorf("seed 001 no longer says %q", s)
		}
	}
	podSpec["description"] = podSpec["description"].(string) + "\n\n" + strings.Join(pidLimitSentences, " ")

	for goName, def := range wrapperDefinitions {
		i := strings.LastIndex(goName, ".")
		p, err := l.load(goName[:i])
		if err != nil {
			return err
		}
		t, ok := p.types[goName[i+1:]]
		if !ok {
			return fmt.Errorf("no type %s", goName)
		}
		defs[def] = map[string]any{"description": description(t.comment)}
	}

	doc := map[string]any{
		"source": *source,
		"notes": []string{
			"Generated by tools/openapi-docs (scripts/openapi-docs) from the Go sources of k8s.io/api and k8s.io/apimachinery; do not edit.",
			"Keyed by the definition names of k8s-v1-schema.json and the fields' JSON names; the structure stays in k8s-v1-schema.json.",
			"Proposed fields and types take their comments from the seeds' Go declarations.",
		},
		"definitions": defs,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return os.WriteFile(*out, buf.Bytes(), 0o644)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "openapi-docs:", err)
		os.Exit(1)
	}
}
