// A dining corner: a table with a bowl of oranges and a bottle, five
// wooden chairs, and a refrigerator against the back wall.
#version 3.7;
#include "room.inc"

camera { location <0.8, 1.55, -2.6> look_at <-0.2, 0.7, 1.0> angle 66 right x*640/480 }

// Dining table, 1.6 x 0.9, top at 0.76
#declare Table = union {
  box { <-0.8, 0.72, -0.45>, <0.8, 0.76, 0.45> texture { Wood } }
  #for (I, 0, 3)
    box { <-0.03,0,-0.03>, <0.03,0.72,0.03> translate <select(mod(I,2),-1,1)*0.72, 0, select(I-1.5,-1,1)*0.38> texture { Wood } }
  #end
}
// A chair facing -z: seat at 0.47, back at +z
#declare Chair = union {
  box { <-0.21, 0.44, -0.21>, <0.21, 0.47, 0.21> texture { Wood } }
  #for (I, 0, 3)
    box { <-0.018,0,-0.018>, <0.018,0.44,0.018> translate <select(mod(I,2),-1,1)*0.19, 0, select(I-1.5,-1,1)*0.19> texture { Wood } }
  #end
  box { <-0.018,0.47,-0.018>, <0.018,0.95,0.018> translate <-0.19,0,0.19> texture { Wood } }
  box { <-0.018,0.47,-0.018>, <0.018,0.95,0.018> translate <0.19,0,0.19> texture { Wood } }
  box { <-0.21, 0.78, 0.17>, <0.21, 0.93, 0.21> texture { Wood } }
  box { <-0.21, 0.6, 0.18>, <0.21, 0.64, 0.2> texture { Wood } }
}
object { Table translate <-0.3, 0, 0.9> }
object { Chair translate <-0.75, 0, 1.5> }
object { Chair translate <0.15, 0, 1.5> }
object { Chair rotate <0,180,0> translate <-0.75, 0, 0.3> }
object { Chair rotate <0,180,0> translate <0.15, 0, 0.3> }
object { Chair rotate <0,90,0> translate <-1.3, 0, 0.9> }

// A bowl of oranges and a green bottle on the table
union {
  difference { sphere { 0, 0.13 scale <1,0.55,1> } sphere { 0, 0.12 scale <1,0.55,1> } plane { y, 0 inverse } translate <0,0.07,0> texture { White } }
  sphere { <0.04,0.06,0.02>, 0.04 pigment { color rgb <0.95,0.5,0.05> } }
  sphere { <-0.04,0.06,-0.01>, 0.04 pigment { color rgb <0.95,0.55,0.05> } }
  sphere { <0.0,0.07,-0.05>, 0.04 pigment { color rgb <0.95,0.5,0.05> } }
  translate <-0.5, 0.76, 0.9>
}
union {
  cylinder { <0,0,0>,<0,0.2,0>,0.035 } sphere { <0,0.2,0>, 0.035 } cylinder { <0,0.2,0>,<0,0.3,0>,0.013 }
  translate <0.1, 0.76, 0.85>
  texture { pigment { color rgbf <0.2,0.5,0.25,0.6> } finish { specular 0.8 roughness 0.005 reflection 0.1 ambient 0 } }
}

// Refrigerator: freezer on top, steel handles
union {
  object { RBox scale <0.35, 0.9, 0.33> translate <0, 0.9, 0> texture { White } }
  box { <-0.345, 1.15, -0.335>, <0.345, 1.16, -0.33> pigment { color rgb 0.3 } }
  box { <0.24, 1.25, -0.37>, <0.265, 1.6, -0.335> texture { Steel } }
  box { <0.24, 0.6, -0.37>, <0.265, 1.05, -0.335> texture { Steel } }
  translate <1.6, 0, 1.8>
}
