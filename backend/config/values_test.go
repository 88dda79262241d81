package config

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	const def = 7 * time.Minute
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"15m", 15 * time.Minute, false},
		{"6h", 6 * time.Hour, false},
		{" 6H ", 6 * time.Hour, false},
		{"1h30m", 90 * time.Minute, false},
		{"90", 90 * time.Second, false},
		{"1.5", 1500 * time.Millisecond, false},
		{"", def, false},
		{"   ", def, false},
		{"0", 0, false},
		{"0s", 0, false},
		{"off", 0, false},
		{"OFF", 0, false},
		{"false", 0, false},
		{"no", 0, false},
		{"-5", def, true},
		{"-1h", def, true},
		{"abc", def, true},
		{"5 minutes", def, true},
		{"NaN", def, true},
		{"inf", def, true},
		{"1e10", def, true}, // overflows time.Duration
		{"9999999999h", def, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDuration(tt.in, def)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseDuration(%q) err = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseDuration(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseDurationErrorQuotesValue(t *testing.T) {
	_, err := ParseDuration("5 minutes", time.Hour)
	if err == nil || !strings.Contains(err.Error(), `"5 minutes"`) {
		t.Fatalf("err = %v, want it to quote the value", err)
	}
}

func TestParseSwitch(t *testing.T) {
	tests := []struct {
		in      string
		def     bool
		want    bool
		wantErr bool
	}{
		{"", true, true, false},
		{"", false, false, false},
		{"  ", true, true, false},
		{"on", false, true, false},
		{"ON", false, true, false},
		{"True", false, true, false},
		{"1", false, true, false},
		{" yes ", false, true, false},
		{"off", true, false, false},
		{"FALSE", true, false, false},
		{"0", true, false, false},
		{"No", true, false, false},
		{"maybe", true, true, true},
		{"maybe", false, false, true},
		{"2", false, false, true},
		{"y", true, true, true},
		{"enabled", false, false, true},
	}
	for _, tt := range tests {
		got, err := ParseSwitch(tt.in, tt.def)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseSwitch(%q, %v) err = %v, wantErr %v", tt.in, tt.def, err, tt.wantErr)
		}
		if got != tt.want {
			t.Errorf("ParseSwitch(%q, %v) = %v, want %v", tt.in, tt.def, got, tt.want)
		}
	}
}

func TestParseFloat(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr bool
	}{
		{"", -1, false},
		{"  ", -1, false},
		{"0", 0, false},
		{"1", 1, false},
		{"0.35", 0.35, false},
		{" 0.5 ", 0.5, false},
		{"1e-1", 0.1, false},
		{"-0.01", -1, true},
		{"1.0001", -1, true},
		{"2", -1, true},
		{"x", -1, true},
		{"0,5", -1, true},
		{"NaN", -1, true},
		{"Inf", -1, true},
		{"-Inf", -1, true},
	}
	for _, tt := range tests {
		got, err := ParseFloat(tt.in, -1, 0, 1)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseFloat(%q) err = %v, wantErr %v", tt.in, err, tt.wantErr)
		}
		if got != tt.want || math.IsNaN(got) {
			t.Errorf("ParseFloat(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
