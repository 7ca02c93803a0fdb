// A living room: a three-seat couch against the back wall, a coffee table
// with a mug, a tv on a low cabinet, a wall clock, a potted plant and an
// armchair at the right edge.
#version 3.7;
#include "room.inc"

camera { location <1.2, 1.35, -2.8> look_at <-0.4, 0.75, 1.4> angle 66 right x*640/480 }

#declare Couch = union {
  Cushion(-1.25, 0.12, 1.2, 1.25, 0.42, 2.1, Fabric)       // base
  #for (I, 0, 2)
    Cushion(-1.0+I*0.667, 0.40, 1.22, -1.0+(I+1)*0.667-0.01, 0.57, 2.0, Fabric)     // seat cushion
    Cushion(-0.98+I*0.667, 0.55, 1.66, -1.0+(I+1)*0.667-0.03, 0.98, 1.92, Fabric)   // back cushion
  #end
  Cushion(-1.1, 0.42, 1.85, 1.1, 1.0, 2.15, Fabric)       // backrest
  Cushion(-1.3, 0.12, 1.2, -1.0, 0.7, 2.15, Fabric)       // arms
  Cushion( 1.0, 0.12, 1.2, 1.3, 0.7, 2.15, Fabric)
  #for (I, 0, 3)
    cylinder { <0,0,0>, <0,0.13,0>, 0.03 translate <select(mod(I,2),-1,1)*1.15, 0, select(I-1.5,1.28,2.05)> texture { Wood } }
  #end
  object { RBox scale <0.2,0.18,0.07> rotate <-12,0,10> translate <-0.75,0.75,1.62> texture { pigment { color rgb <0.85,0.72,0.3> } finish { diffuse 0.8 ambient 0 } } }
  object { RBox scale <0.2,0.18,0.07> rotate <-12,0,-8> translate <0.75,0.75,1.62> texture { pigment { color rgb <0.75,0.3,0.25> } finish { diffuse 0.8 ambient 0 } } }
}
object { Couch translate <-0.2, 0, 0> }

// Coffee table with a mug
union {
  object { RBox scale <0.55, 0.025, 0.3> translate <0, 0.42, 0> texture { Wood } }
  #for (I, 0, 3)
    box { <-0.02,0,-0.02>, <0.02,0.40,0.02> translate <select(mod(I,2),-1,1)*0.5, 0, select(I-1.5,-1,1)*0.25> texture { Wood } }
  #end
  difference { cylinder { <0,0,0>,<0,0.1,0>,0.045 } cylinder { <0,0.01,0>,<0,0.11,0>,0.04 } translate <0.25,0.445,-0.05> texture { pigment { color rgb <0.9,0.9,0.92> } finish { specular 0.5 diffuse 0.8 ambient 0 } } }
  translate <-0.2, 0, 0.45>
}

// TV on a low cabinet, showing a landscape
union {
  box { <-0.8, 0.05, -0.22>, <0.8, 0.5, 0.22> texture { Wood } }
  box { <-0.08, 0.5, -0.05>, <0.08, 0.53, 0.05> pigment { color rgb 0.05 } }
  box { <-0.02, 0.53, -0.01>, <0.02, 0.62, 0.01> pigment { color rgb 0.05 } }
  box { <-0.62, 0.62, -0.03>, <0.62, 1.33, 0.03> texture { pigment { color rgb 0.02 } finish { specular 0.6 roughness 0.01 diffuse 0.5 ambient 0 } } }
  box { <-0.6, 0.64, -0.035>, <0.6, 1.31, -0.031> texture { pigment { gradient y color_map { [0 color rgb <0.2,0.45,0.15>] [0.45 color rgb <0.25,0.5,0.2>] [0.5 color rgb <0.6,0.75,0.95>] [1 color rgb <0.3,0.5,0.9>] } scale 0.67 translate <0,0.64,0> } finish { emission 0.8 diffuse 0.2 ambient 0 } } }
  rotate <0, -55, 0>
  translate <-2.3, 0, 0.5>
}

// Wall clock above the couch, ten past ten
union {
  cylinder { <0,0,0>, <0,0,-0.03>, 0.2 texture { pigment { color rgb 0.05 } finish { diffuse 0.6 ambient 0 } } }
  cylinder { <0,0,-0.03>, <0,0,-0.031>, 0.18 texture { pigment { color rgb 0.95 } finish { diffuse 0.9 ambient 0 } } }
  #for (H, 0, 11)
    box { <-0.006, 0.14, -0.033>, <0.006, 0.17, -0.031> rotate <0,0,H*30> pigment { color rgb 0.05 } }
  #end
  box { <-0.008, 0, -0.036>, <0.008, 0.1, -0.034> rotate <0,0,-60> pigment { color rgb 0.05 } }
  box { <-0.006, 0, -0.038>, <0.006, 0.15, -0.036> rotate <0,0,40> pigment { color rgb 0.05 } }
  translate <-0.2, 1.75, 2.2>
}

// Armchair, turned toward the room
union {
  Cushion(-0.45, 0.12, -0.45, 0.45, 0.45, 0.45, Fabric2)
  Cushion(-0.35, 0.43, -0.4, 0.35, 0.56, 0.3, Fabric2)
  Cushion(-0.45, 0.40, 0.25, 0.45, 1.0, 0.45, Fabric2)
  Cushion(-0.5, 0.12, -0.45, -0.32, 0.68, 0.45, Fabric2)
  Cushion( 0.32, 0.12, -0.45, 0.5, 0.68, 0.45, Fabric2)
  rotate <0, 50, 0>
  translate <2.1, 0, 0.7>
}

// Potted plant in the corner: a clay pot and 41 leaves
union {
  cone { <0,0,0>, 0.14, <0,0.38,0>, 0.19 texture { pigment { color rgb <0.7,0.35,0.2> } finish { diffuse 0.8 ambient 0 } } }
  #declare R = seed(7);
  #for (I, 0, 40)
    #declare A = rand(R)*360; #declare E = 25 + rand(R)*55; #declare L = 0.35 + rand(R)*0.35;
    sphere { 0, 1 scale <0.05, 0.008, 0.16> translate <0,0,0.16> rotate <-E, A, 0> scale L/0.3 translate <0, 0.45 + rand(R)*0.25, 0> texture { pigment { color rgb <0.12, 0.4 + rand(R)*0.2, 0.12> } finish { diffuse 0.8 specular 0.2 ambient 0 } } }
  #end
  translate <1.5, 0, 1.8>
}
