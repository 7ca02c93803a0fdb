// A bedroom: a double bed under a red duvet, its headboard against the
// back wall, and a nightstand with a lamp.
#version 3.7;
#include "room.inc"

camera { location <1.0, 1.3, -1.6> look_at <-0.4, 0.55, 1.1> angle 70 right x*640/480 }

#declare Linen = texture { pigment { color rgb <0.93,0.93,0.95> } normal { wrinkles 0.25 scale 0.05 } finish { diffuse 0.85 ambient 0 } }
#declare Duvet = texture { pigment { color rgb <0.6,0.25,0.22> } normal { wrinkles 0.35 scale 0.08 } finish { diffuse 0.85 ambient 0 } }

// Double bed, 1.6 wide and 2.1 long
union {
  Cushion(-0.85, 0.08, -1.05, 0.85, 0.35, 1.05, Wood)             // frame
  Cushion(-0.8, 0.33, -1.0, 0.8, 0.58, 1.0, Linen)                // mattress
  Cushion(-0.9, 0.25, -1.1, 0.9, 0.68, 0.5, Duvet)                // duvet, hanging over the sides
  Cushion(-0.7, 0.56, 0.62, -0.08, 0.72, 0.95, Linen)             // pillows
  Cushion( 0.08, 0.56, 0.62, 0.7, 0.72, 0.95, Linen)
  Cushion(-0.6, 0.6, 0.45, -0.1, 0.85, 0.6, Duvet)                // cushions
  Cushion( 0.1, 0.6, 0.45, 0.6, 0.85, 0.6, Duvet)
  Cushion(-0.9, 0.08, 1.0, 0.9, 1.15, 1.12, Wood)                 // headboard
  #for (I, 0, 3)
    box { <-0.03,0,-0.03>, <0.03,0.1,0.03> translate <select(mod(I,2),-1,1)*0.8, 0, select(I-1.5,-1,1)*1.0> texture { Wood } }
  #end
  translate <-0.5, 0, 1.05>
}

// Nightstand with a lamp
union {
  box { <-0.25, 0, -0.2>, <0.25, 0.55, 0.2> texture { Wood } }
  box { <-0.22, 0.3, -0.205>, <0.22, 0.31, -0.2> pigment { color rgb 0.2 } }
  cylinder { <0,0.55,0>, <0,0.85,0>, 0.015 pigment { color rgb 0.2 } }
  cone { <0,0.8,0>, 0.16, <0,1.0,0>, 0.09 open texture { pigment { color rgb <0.95,0.9,0.8> } finish { diffuse 0.9 emission 0.3 ambient 0 } } }
  translate <0.75, 0, 1.9>
}
