# drivescope chart: Sequential transfer rate by position
# Data: transfer.dat (columns described in its header).
# Render: gnuplot transfer.gp   (SVG)   or   gnuplot -e "fmt='png'" transfer.gp   (PNG)
if (!exists("fmt")) fmt = 'svg'
if (fmt eq 'png') {
  set terminal pngcairo size 960,560 enhanced font 'DejaVu Sans,11' background rgb 'white'
  set output 'transfer.png'
} else {
  set terminal svg size 960,560 fixed enhanced font 'DejaVu Sans,11' background rgb 'white'
  set output 'transfer.svg'
}
set title "Sequential transfer rate by position" noenhanced font ',14'
set border 3 lc rgb '#555555'
set tics nomirror
set grid xtics ytics lc rgb '#dddddd' lt 1
set key inside top right opaque box lc rgb '#bbbbbb' noenhanced spacing 1.1 width 1
set xlabel 'Position (GB from the outer edge, LBA 0)'
set ylabel 'Transfer rate (MB/s)'
set yrange [0:*]
set xrange [0:*]
set label 1 "outer 72.4 MB/s, inner 44.9 MB/s, ratio 1.61" at graph 0.98, graph 0.06 right font ',10' tc rgb '#444444'
plot 'transfer.dat' index 1 using 1:2 with lines lw 7 lc rgb '#f5c77e' title 'detected zones (16)', '' index 0 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#1f5fa8' title 'measured rate'
