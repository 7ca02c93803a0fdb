package estimate

import "testing"

func TestParseHomeSize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Size
	}{
		{"studio", "studio", Size{0, "studio"}},
		{"studio mixed case", "Studio Apartment", Size{0, "studio"}},
		{"efficiency", "efficiency unit", Size{0, "studio"}},
		{"bedroom singular", "2 bedroom", Size{2, "bedrooms"}},
		{"bedrooms plural", "2 bedrooms", Size{2, "bedrooms"}},
		{"br joined", "3br", Size{3, "bedrooms"}},
		{"br upper case", "3BR", Size{3, "bedrooms"}},
		{"bd", "3 bd", Size{3, "bedrooms"}},
		{"hyphenated bed", "3-bed", Size{3, "bedrooms"}},
		{"bed house", "3 bed house", Size{3, "bedrooms"}},
		{"number word", "two bedroom apartment", Size{2, "bedrooms"}},
		{"number word hyphenated", "Three-Bedroom Townhouse", Size{3, "bedrooms"}},
		{"bdrm", "4 bdrm", Size{4, "bedrooms"}},
		{"b slash r", "1 b/r condo", Size{1, "bedrooms"}},
		{"extra room ignored", "1 bedroom + office", Size{1, "bedrooms"}},
		{"bath before bed", "2 bath 3 bed", Size{3, "bedrooms"}},
		{"zero bedrooms", "0 bedrooms", Size{0, "bedrooms"}},
		{"fraction rounds up", "2.5 bedrooms", Size{3, "bedrooms"}},
		{"five plus", "5+ bedrooms", Size{5, "bedrooms"}},
		{"clamped to five", "7 bedroom house", Size{5, "bedrooms"}},
		{"largest accepted", "15 bedrooms", Size{5, "bedrooms"}},
		{"bedrooms beat sqft", "1,800 sq ft, 2 bedrooms", Size{2, "bedrooms"}},
		{"bedrooms beat studio", "studio plus 1 bedroom", Size{1, "bedrooms"}},
		{"sq ft with comma", "1,800 sq ft", Size{3, "sqft"}},
		{"sqft joined", "1800 sqft", Size{3, "sqft"}},
		{"square feet", "2000 square feet", Size{4, "sqft"}},
		{"sq. ft.", "about 950 sq. ft.", Size{2, "sqft"}},
		{"sf", "650 sf", Size{1, "sqft"}},
		{"sq.ft joined", "950sq.ft", Size{2, "sqft"}},
		{"square ft", "950 square ft", Size{2, "sqft"}},
		{"sq foot", "950 sq foot", Size{2, "sqft"}},
		{"ft caret 2", "1300 ft^2", Size{3, "sqft"}},
		{"ft squared", "1300 ft²", Size{3, "sqft"}},
		{"ft2 joined", "1300 ft2", Size{3, "sqft"}},
		{"small sqft is studio", "450 sq ft", Size{0, "sqft"}},
		{"band lower edge", "600 sqft", Size{1, "sqft"}},
		{"band just below", "599 sqft", Size{0, "sqft"}},
		{"sqft clamped to five", "6,000 sq ft", Size{5, "sqft"}},
		{"sqft largest accepted", "20,000 sq ft", Size{5, "sqft"}},
		{"sqft beats studio", "studio, 700 sq ft", Size{1, "sqft"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseHomeSize(tt.in)
			if !ok {
				t.Fatalf("ParseHomeSize(%q) = _, false; want %+v, true", tt.in, tt.want)
			}
			if got != tt.want {
				t.Errorf("ParseHomeSize(%q) = %+v; want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseHomeSizeUnreadable(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"spaces", "   "},
		{"no number", "big house"},
		{"vague", "lots"},
		{"bare number", "3"},
		{"bare area", "1800"},
		{"bedroom without count", "bedroom"},
		{"baths only", "2 bath"},
		{"absurd bedrooms", "50 bedrooms"},
		{"absurd bedrooms by fraction", "15.5 bedrooms"},
		{"huge number", "99999999999999999999999 bedrooms"},
		{"tiny area", "10 sq ft"},
		{"absurd area", "25,000 sq ft"},
		{"square metres", "80 m²"},
		{"ft then separate 2", "1300 ft 2"},
		{"sq alone", "900 sq"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := ParseHomeSize(tt.in); ok {
				t.Errorf("ParseHomeSize(%q) = %+v, true; want false", tt.in, got)
			}
		})
	}
}

func FuzzParseHomeSize(f *testing.F) {
	for _, s := range []string{"studio", "2 bedrooms", "3br", "two bedroom apartment", "1,800 sq ft",
		"2000 square feet", "1 bedroom + office", "5+ bedrooms", "2.5 br", "1300 ft²", "1 b/r", "", "lots",
		"1,2345 sq ft", "9,999,999,999,999 sqft", "\xff3 bed"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseHomeSize(s)
		if !ok {
			if got != (Size{}) {
				t.Errorf("ParseHomeSize(%q) = %+v, false; want the zero Size with false", s, got)
			}
			return
		}
		if got.Bedrooms < 0 || got.Bedrooms > maxBedroomEquivalents {
			t.Errorf("ParseHomeSize(%q).Bedrooms = %d; want 0..%d", s, got.Bedrooms, maxBedroomEquivalents)
		}
		switch got.Source {
		case sourceStudio, sourceBedrooms, sourceSqft:
		default:
			t.Errorf("ParseHomeSize(%q).Source = %q; want studio, bedrooms or sqft", s, got.Source)
		}
	})
}
