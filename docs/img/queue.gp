# drivescope chart: Access time against outstanding requests (3-D)
# Data: queue_surface.dat (columns described in its header).
# Render: gnuplot queue_surface.gp   (SVG)   or   gnuplot -e "fmt='png'" queue_surface.gp   (PNG)
if (!exists("fmt")) fmt = 'svg'
if (fmt eq 'png') {
  set terminal pngcairo size 960,640 enhanced font 'DejaVu Sans,11' background rgb 'white'
  set output 'queue.png'
} else {
  set terminal svg size 960,640 fixed enhanced font 'DejaVu Sans,11' background rgb 'white'
  set output 'queue.svg'
}
set title "Access time against outstanding requests (3-D)" noenhanced font ',14'
set border 3 lc rgb '#555555'
set tics nomirror
set grid xtics ytics lc rgb '#dddddd' lt 1
set key inside top right opaque box lc rgb '#bbbbbb' noenhanced spacing 1.1 width 1
set xlabel 'Queue depth' offset 0,-1
set ylabel 'Access time (ms)' offset 2,0
set zlabel 'Share (%)' rotate by 90
set view 62, 38
set ticslevel 0
set pm3d depthorder border lc rgb '#3a3a3a' lw 0.3
set palette defined (0 '#f7fbff', 10 '#6baed6', 30 '#2171b5', 60 '#08306b', 100 '#000000')
set cblabel 'Share of requests (%)'
set key off
set grid xtics ytics ztics lc rgb '#dddddd'
set border 4095 lc rgb '#888888'
set xtics ("1" 0, "2" 1, "4" 2, "8" 3, "16" 4, "32" 5)
set ytics ("1" 0.0000, "10" 1.0000, "100" 2.0000)
splot 'queue.dat' using 1:2:3 with pm3d notitle
