// Generated from Themes/*.toml so the binary runs from anywhere; a test checks that each text
// still equals its file. Edit the TOML files, then copy them here.

enum BuiltinThemes {
    static let sources: [String: String] = [
        "default": #"""
# Cardfile's default theme: dark.
# Colours are "#rrggbb", a colour name ("red", "bright-blue"), "default" (the terminal's own),
# or an xterm colour number 0-255. Terminals with fewer colours get the nearest they have.
name = "default"

[colors]
background = "default"
surface = "#262a36"
text = "#d8dae3"
muted = "#7d8295"
accent = "#7aa2f7"
selection = "#364a82"
border = "#4a5068"
error = "#f7768e"
warning = "#e0af68"
success = "#9ece6a"
modified = "#e0af68"
conflict = "#ff5f87"
inserted = "#9ece6a"
deleted = "#a05a6a"

[attributes]
accent = ["bold"]
conflict = ["bold"]
"""#,
        "light": #"""
# Cardfile theme for light terminals: dark text, colours strong enough on white.
name = "light"

[colors]
background = "default"
surface = "#e8e8ee"
text = "#1f2330"
muted = "#626879"
accent = "#1d4fb8"
selection = "#b9cdf5"
border = "#9aa0b4"
error = "#b3122f"
warning = "#8a5a00"
success = "#2b6e12"
modified = "#8a5a00"
conflict = "#c4003a"
inserted = "#2b6e12"
deleted = "#8c3b4d"

[attributes]
accent = ["bold"]
conflict = ["bold"]
"""#,
        "high-contrast": #"""
# Cardfile theme with maximum contrast: black, white and saturated marks.
name = "high-contrast"

[colors]
background = "black"
surface = "black"
text = "bright-white"
muted = "white"
accent = "bright-yellow"
selection = "bright-blue"
border = "bright-white"
error = "bright-red"
warning = "bright-yellow"
success = "bright-green"
modified = "bright-yellow"
conflict = "bright-magenta"
inserted = "bright-green"
deleted = "bright-red"

[attributes]
accent = ["bold"]
selection = ["bold"]
conflict = ["bold", "underline"]
error = ["bold"]
"""#,
        "mono": #"""
# Cardfile theme without colour (NO_COLOR selects it): attributes only.
name = "mono"

[colors]
background = "default"
surface = "default"
text = "default"
muted = "default"
accent = "default"
selection = "default"
border = "default"
error = "default"
warning = "default"
success = "default"
modified = "default"
conflict = "default"
inserted = "default"
deleted = "default"

[attributes]
muted = ["dim"]
accent = ["bold"]
selection = ["reverse"]
error = ["bold", "underline"]
warning = ["bold"]
modified = ["bold"]
conflict = ["bold", "reverse"]
inserted = ["bold"]
deleted = ["dim"]
"""#,
    ]
}
